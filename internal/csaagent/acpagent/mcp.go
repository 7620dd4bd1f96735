package acpagent

import (
	"encoding/json"
	"fmt"

	acp "github.com/coder/acp-go-sdk"
)

// mcpConfig turns the client's MCP servers into one document in Claude
// Code's {"mcpServers": {...}} shape, which csa-agent's MCP client reads as
// it reads --mcp-config: stdio, HTTP and SSE servers. A server offered
// over the ACP channel itself is not supported and is left out, with a
// warning.
func (a *Agent) mcpConfig(servers []acp.McpServer) []string {
	if len(servers) == 0 {
		return nil
	}
	entries := map[string]any{}
	for _, s := range servers {
		switch {
		case s.Stdio != nil:
			env := map[string]string{}
			for _, v := range s.Stdio.Env {
				env[v.Name] = v.Value
			}
			entries[s.Stdio.Name] = map[string]any{"command": s.Stdio.Command, "args": s.Stdio.Args, "env": env}
		case s.Http != nil:
			entries[s.Http.Name] = map[string]any{"type": "http", "url": s.Http.Url, "headers": headers(s.Http.Headers)}
		case s.Sse != nil:
			entries[s.Sse.Name] = map[string]any{"type": "sse", "url": s.Sse.Url, "headers": headers(s.Sse.Headers)}
		default:
			a.warn(fmt.Sprintf("an MCP server over the ACP channel is not supported: left out (%+v)", s))
		}
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": entries})
	return []string{string(b)}
}

func headers(hs []acp.HttpHeader) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}

func (a *Agent) warn(msg string) {
	if a.cfg.Warn != nil {
		a.cfg.Warn(msg)
	}
}
