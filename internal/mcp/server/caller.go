package server

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/mcp/hub"
)

// callerOf is the agent the hub says a call comes from (csa's MCP server
// behind the hub is the hub's child, not the agent's), or nil when the
// server was started by the agent itself.
func callerOf(req *mcp.CallToolRequest) *hub.Caller {
	if req == nil || req.Params == nil {
		return nil
	}
	raw, ok := req.Params.Meta[hub.CallerMeta]
	if !ok {
		return nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil
	}
	var c hub.Caller
	if json.Unmarshal(b, &c) != nil {
		return nil
	}
	return &c
}

// callerEnv is env with the caller's csa session variables in place of
// any of this process's own (CSA_SESSION_ID, CSA_DEPTH, ...: the hub runs
// outside every session, and must not lend one to the caller).
func callerEnv(env []string, c *hub.Caller) []string {
	out := make([]string, 0, len(env)+len(c.Env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if sessionVar(k) || (k == "PWD" && c.Cwd != "") {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range c.Env {
		if sessionVar(k) {
			out = append(out, k+"="+v)
		}
	}
	if c.Cwd != "" {
		out = append(out, "PWD="+c.Cwd)
	}
	return out
}

// sessionVar: the caller may set only csa's session variables, nothing
// that would change what runs (PATH, LD_PRELOAD, ...).
func sessionVar(k string) bool { return slices.Contains(csaenv.Run, k) }
