package config

import (
	"strings"
	"testing"
)

func TestMCPServersMerge(t *testing.T) {
	l := mustLoad(t, `
[mcp.servers.everything]
command = "mcp-server-everything"
concurrency = 4
[mcp.servers.web]
url = "http://127.0.0.1:9/mcp"
headers = { Authorization = "Bearer x" }
`, `
[mcp]
idle_exit = "1m"
[mcp.servers.memory]
command = "mcp-server-memory"
scope = "project"
tools = { deny = ["delete_*"] }
[mcp.servers.everything]
concurrency = 1
`)
	m := l.Config.MCP
	if len(m.Servers) != 3 || m.IdleExit.Std().String() != "1m0s" || !m.Enabled {
		t.Fatalf("mcp: %+v", m)
	}
	if e := m.Servers["everything"]; e.Command != "mcp-server-everything" || e.Concurrency != 1 || e.QueueMax() != DefaultMCPQueue {
		t.Errorf("everything merged key by key: %+v", e)
	}
	mem := m.Servers["memory"]
	if mem.Scope != MCPProject || mem.Exposes("delete_entities") || !mem.Exposes("read_graph") {
		t.Errorf("memory: %+v", mem)
	}
	if w := m.Servers["web"]; w.URL == "" || w.Headers["Authorization"] != "Bearer x" {
		t.Errorf("web: %+v", w)
	}
}

func TestMCPValidation(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{"[mcp.servers.a]\nargs = [\"x\"]", `"mcp.servers.a.command": a server needs a command (stdio) or a url`},
		{"[mcp.servers.a]\ncommand = \"x\"\nurl = \"http://h/mcp\"", `"mcp.servers.a.url": a server has a command or a url, not both`},
		{"[mcp.servers.a]\nurl = \"ftp://h/mcp\"", `"ftp://h/mcp" is not an http(s) URL`},
		{"[mcp.servers.a]\ncommand = \"x\"\nheaders = { A = \"b\" }", `"mcp.servers.a.headers": headers are for url servers`},
		{"[mcp.servers.a]\ncommand = \"x\"\nscope = \"global\"", `"mcp.servers.a.scope": "global" is not one of shared, project`},
		{"[mcp.servers.a]\ncommand = \"x\"\nargs = [\"{project}/db\"]", `"mcp.servers.a.scope": {project} in args, env or cwd needs scope = "project"`},
		{"[mcp.servers.a]\ncommand = \"x\"\nconcurrency = -1", `"mcp.servers.a.concurrency": -1 cannot be negative`},
		{"[mcp.servers.a]\ncommand = \"x\"\nqueue = -1", `"mcp.servers.a.queue": -1 cannot be negative`},
		{"[mcp.servers.a]\ncommand = \"x\"\nmemory_max_mb = -5", `"mcp.servers.a.memory_max_mb": -5 cannot be negative`},
		{"[mcp.servers.a]\ncommand = \"x\"\ntools = { allow = [\"[\"] }", `"mcp.servers.a.tools.allow": pattern "["`},
		{"[mcp.servers.a]\ncommand = \"x\"\nidle_ttl = \"soon\"", `invalid duration "soon"`},
		{"[mcp.servers.a]\ncommand = \"x\"\ncomand = \"y\"", `unknown key "mcp.servers.a.comand"`},
		{"[mcp.servers.\"a b\"]\ncommand = \"x\"", `"mcp.servers.\"a b\"": a server's name is 1-32 letters`},
	} {
		g, p := files(t, tt.doc, "")
		_, err := LoadFiles(g, p)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %q", tt.doc, err, tt.want)
		}
	}
}
