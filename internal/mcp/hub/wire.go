package hub

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxMessage is the largest JSON-RPC message the hub reads. Other hubs cap
// lines at 1 MB and fail on big tool results; 64 MiB is the floor asked for.
const MaxMessage = 64 << 20

// JSON-RPC error codes the hub answers with itself.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	// codeBackend: the backend died, could not start, or its queue is full.
	codeBackend = -32000
)

// msg is one JSON-RPC 2.0 message of any kind. Ids and params stay raw: the
// hub rewrites only the few fields it routes by.
type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

func (m *msg) isRequest() bool      { return m.Method != "" && len(m.ID) > 0 }
func (m *msg) isNotification() bool { return m.Method != "" && len(m.ID) == 0 }

func errorReply(id json.RawMessage, code int, format string, a ...any) *msg {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return &msg{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: fmt.Sprintf(format, a...)}}
}

func resultReply(id json.RawMessage, result any) *msg {
	b, err := json.Marshal(result)
	if err != nil {
		return errorReply(id, codeInternal, "hub: %v", err)
	}
	return &msg{JSONRPC: "2.0", ID: id, Result: b}
}

func notification(method string, params any) *msg {
	m := &msg{JSONRPC: "2.0", Method: method}
	if params != nil {
		m.Params, _ = json.Marshal(params)
	}
	return m
}

var errTooLong = errors.New("message longer than 64 MiB")

// reader reads newline-delimited messages of any size up to MaxMessage
// (bufio.Scanner would stop at 64 KiB).
type reader struct{ br *bufio.Reader }

func newReader(r io.Reader) *reader { return &reader{bufio.NewReaderSize(r, 64<<10)} }

// line returns the next non-blank line without its newline. A line over
// MaxMessage is skipped whole and reported as errTooLong, so the stream
// stays usable.
func (r *reader) line() ([]byte, error) {
	for {
		var buf []byte
		tooLong := false
		for {
			chunk, err := r.br.ReadSlice('\n')
			if !tooLong {
				if len(buf)+len(chunk) > MaxMessage+1 {
					tooLong, buf = true, nil
				} else {
					buf = append(buf, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && (err != io.EOF || len(buf) == 0) {
				return nil, err
			}
			break
		}
		if tooLong {
			return nil, errTooLong
		}
		if b := bytes.TrimSpace(buf); len(b) > 0 {
			return b, nil
		}
	}
}

// next decodes the next message; a line that is not a JSON-RPC object is
// returned as a parse error with the stream still usable.
func (r *reader) next() (*msg, error) {
	b, err := r.line()
	if err != nil {
		return nil, err
	}
	var m msg
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, &rpcError{Code: codeParse, Message: "parse error: " + err.Error()}
	}
	return &m, nil
}

func encode(m *msg) []byte {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil { // only raw fields that are not JSON; never from parsed input
		b, _ = json.Marshal(errorReply(m.ID, codeInternal, "hub: %v", err))
	}
	return append(b, '\n')
}
