package hub

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/csa-dev/csa/internal/jsonrpc"
)

// MaxMessage is the largest JSON-RPC message the hub reads. Other hubs cap
// lines at 1 MB and fail on big tool results; 64 MiB is the floor asked for.
const MaxMessage = 64 << 20

// codeBackend: the backend died, could not start, or its queue is full.
const codeBackend = -32000

// msg is one JSON-RPC message of any kind. Ids and params stay raw: the
// hub rewrites only the few fields it routes by.
type msg = jsonrpc.Message

func errorReply(id json.RawMessage, code int, format string, a ...any) *msg {
	return &msg{JSONRPC: jsonrpc.Version, ID: jsonrpc.IDOrNull(id), Error: jsonrpc.Errorf(code, format, a...)}
}

func resultReply(id json.RawMessage, result any) *msg {
	b, err := json.Marshal(result)
	if err != nil {
		return errorReply(id, jsonrpc.CodeInternal, "hub: %v", err)
	}
	return &msg{JSONRPC: jsonrpc.Version, ID: id, Result: b}
}

func notification(method string, params any) *msg {
	m := &msg{JSONRPC: jsonrpc.Version, Method: method}
	if params != nil {
		m.Params, _ = json.Marshal(params)
	}
	return m
}

var errTooLong = errors.New("message longer than 64 MiB")

// reader reads the messages of one stream.
type reader struct{ r *jsonrpc.Reader }

func newReader(r io.Reader) *reader { return &reader{jsonrpc.NewReader(r, MaxMessage)} }

// next decodes the next message, skipping blank lines. A line over
// MaxMessage is errTooLong, and one that is not a JSON-RPC object a parse
// error (a *jsonrpc.Error), with the stream still usable.
func (r *reader) next() (*msg, error) {
	for {
		line, err := r.r.Line()
		if err == jsonrpc.ErrTooLong {
			return nil, errTooLong
		}
		if err != nil {
			return nil, err
		}
		b := bytes.TrimSpace(line)
		if len(b) == 0 {
			continue
		}
		var m msg
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeParse, "parse error: %v", err)
		}
		return &m, nil
	}
}

// encode is m's line, with "jsonrpc" set as the hub always writes it.
func encode(m *msg) []byte {
	m.JSONRPC = jsonrpc.Version
	b, err := jsonrpc.Encode(m)
	if err != nil { // only raw fields that are not JSON; never from parsed input
		b, _ = jsonrpc.Encode(errorReply(m.ID, jsonrpc.CodeInternal, "hub: %v", err))
	}
	return b
}
