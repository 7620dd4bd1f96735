// Package jsonrpc is JSON-RPC 2.0 as csa's programs speak it, one message
// per line: the MCP hub (csa-mcp) and csa-agent's app-server. It holds the
// message and error types, the ids and the newline-delimited framing; what
// a side writes in "jsonrpc" is its own (the hub writes it, the app-server
// leaves it out as Codex does).
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Version is the "jsonrpc" member of a message that carries one.
const Version = "2.0"

// The error codes of JSON-RPC 2.0.
const (
	CodeParse          = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
)

// Message is one message of any kind: a request (method and id), a
// notification (method, no id) or a response (id, result or error). The
// id, params and result stay raw, byte for byte: a side decodes only what
// it routes by, and passes the rest on.
type Message struct {
	JSONRPC string          `json:"jsonrpc,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// IsRequest: a method and an id member (null is one: it is answered).
func (m *Message) IsRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// IsNotification: a method without an id member.
func (m *Message) IsNotification() bool { return m.Method != "" && len(m.ID) == 0 }

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// Errorf is an error object of code with a formatted message.
func Errorf(code int, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// Null is the id of a reply to a message whose id is unknown.
func Null() json.RawMessage { return json.RawMessage("null") }

// IDOrNull is id, or null for a message that had none.
func IDOrNull(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return Null()
	}
	return id
}

// ValidID: a request id is a string or a number.
func ValidID(id json.RawMessage) bool {
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

// Raw is v as a member's raw value (params, result, data): nil for nil,
// so that the member is left out.
func Raw(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}
