package appserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// JSON-RPC 2.0 error codes; -32001 is Codex's "overloaded, retry".
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeOverloaded     = -32001
)

// message is any line on the wire: a request (method and id), a
// notification (method, no id) or a response (id, result or error). Codex
// leaves out "jsonrpc"; it is accepted when present.
type message struct {
	JSONRPC string          `json:"jsonrpc,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// overloaded is Codex's -32001 with its data: the client may retry.
func overloaded(reason, format string, args ...any) *Error {
	e := errorf(codeOverloaded, format, args...)
	e.Data = map[string]any{"reason": reason, "retryable": true}
	return e
}

// outgoing is what the server writes: the same shapes, "jsonrpc" left out
// as Codex does.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result any             `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

type request struct {
	ID     int64  `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

type notification struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// validID: a request id is a string or a number.
func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// errLineTooLong is a line over the limit; the rest of it is skipped.
var errLineTooLong = errors.New("line too long")

// readLine reads one line of at most max bytes (without its newline).
// A longer line is consumed to its end and reported as errLineTooLong, so
// the connection goes on with the next one.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > max+1 {
				tooLong, line = true, nil
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && (len(line) > 0 || tooLong):
			err = nil
		case err != nil:
			return nil, err
		}
		if tooLong {
			return nil, errLineTooLong
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}
