package appserver

import (
	"encoding/json"

	"github.com/csa-dev/csa/internal/jsonrpc"
)

// The JSON-RPC error codes the server answers with; -32001 is Codex's
// "overloaded, retry".
const (
	codeParse          = jsonrpc.CodeParse
	codeInvalidRequest = jsonrpc.CodeInvalidRequest
	codeMethodNotFound = jsonrpc.CodeMethodNotFound
	codeInvalidParams  = jsonrpc.CodeInvalidParams
	codeInternal       = jsonrpc.CodeInternal
	codeOverloaded     = -32001
)

// The messages are jsonrpc.Message. Codex leaves out "jsonrpc": it is
// accepted when present, and the server never writes it.

// overloaded is Codex's -32001 with its data: the client may retry.
func overloaded(reason, format string, args ...any) *jsonrpc.Error {
	e := jsonrpc.Errorf(codeOverloaded, format, args...)
	e.Data, _ = json.Marshal(map[string]any{"reason": reason, "retryable": true})
	return e
}
