package agents

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// hub is the bridge with values that need quoting in every syntax.
var hub = []MCPServer{{Name: "csa", Command: `/opt/my "csa"/csa-mcp`, Args: []string{"connect", "--socket", `/run/a\b.sock`, "--project", "/p/it's"}}}

// Claude Code and csa-agent take the servers alike: --mcp-config JSON,
// the user's own servers kept.
func TestClaudeMCPConfig(t *testing.T) {
	for _, tool := range []Tool{ClaudeCode, CSAAgent} {
		t.Run(string(tool), func(t *testing.T) { testClaudeMCPConfig(t, tool) })
	}
}

func testClaudeMCPConfig(t *testing.T, tool Tool) {
	s, _ := Lookup(string(tool))
	inv, err := s.Adapter.Build(Request{Prompt: "hi", Model: "m", MCP: hub})
	if err != nil {
		t.Fatal(err)
	}
	// -p, then the option of several values, then a flag: never the prompt.
	if inv.Args[0] != "-p" || inv.Args[1] != "--mcp-config" || !strings.HasPrefix(inv.Args[3], "--") || inv.Args[len(inv.Args)-1] != "hi" {
		t.Fatalf("args %q", inv.Args)
	}
	want := `{"mcpServers":{"csa":{"type":"stdio","command":"/opt/my \"csa\"/csa-mcp","args":["connect","--socket","/run/a\\b.sock","--project","/p/it's"]}}}`
	if inv.Args[2] != want {
		t.Fatalf("--mcp-config\n got %s\nwant %s", inv.Args[2], want)
	}
	if slices.Contains(inv.Args, "--strict-mcp-config") {
		t.Fatal("the user's servers must stay")
	}
	// Interactive: before --settings.
	ii, err := BuildInteractive(tool, InteractiveRequest{Prompt: "hi", Dir: t.TempDir(), Hook: "h", MCP: hub})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(ii.Args, "--mcp-config")
	if i < 0 || ii.Args[i+1] != want || ii.Args[i+2] != "--settings" {
		t.Fatalf("interactive args %q", ii.Args)
	}
}

func TestCodexMCPOverrides(t *testing.T) {
	want := []string{
		"-c", `mcp_servers.csa.command="/opt/my \"csa\"/csa-mcp"`,
		"-c", `mcp_servers.csa.args=["connect","--socket","/run/a\\b.sock","--project","/p/it's"]`,
	}
	for _, r := range []Request{{Prompt: "hi", MCP: hub}, {Prompt: "hi", ResumeID: "r1", MCP: hub}} {
		inv, err := codex{}.Build(r)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(inv.Args, "-c")
		if i < 0 || !slices.Equal(inv.Args[i:i+4], want) {
			t.Fatalf("args %q", inv.Args)
		}
		if tail := inv.Args[len(inv.Args)-1]; tail != "hi" {
			t.Fatalf("prompt not last: %q", inv.Args)
		}
	}
	ii, err := BuildInteractive(Codex, InteractiveRequest{Hook: "h", MCP: hub})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(ii.Args, want[1])
	if i < 1 || !slices.Equal(ii.Args[i-1:i+3], want) {
		t.Fatalf("interactive args %q", ii.Args)
	}
	if got := tomlKey("a.b"); got != `"a.b"` {
		t.Errorf("tomlKey(a.b) = %s", got)
	}
}

func TestOpencodeMCPEnv(t *testing.T) {
	inv, err := opencode{}.Build(Request{Prompt: "hi", MCP: hub})
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Env) != 1 || !strings.HasPrefix(inv.Env[0], "OPENCODE_CONFIG_CONTENT=") {
		t.Fatalf("env %q", inv.Env)
	}
	want := `{"mcp":{"csa":{"command":["/opt/my \"csa\"/csa-mcp","connect","--socket","/run/a\\b.sock","--project","/p/it's"],"enabled":true,"type":"local"}}}`
	if got := strings.TrimPrefix(inv.Env[0], "OPENCODE_CONFIG_CONTENT="); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	// A value the user set is kept, with csa's server added.
	user := `{"model":"x/y","mcp":{"mine":{"type":"local","command":["srv"]}}}`
	getenv := func(k string) string {
		if k == "OPENCODE_CONFIG_CONTENT" {
			return user
		}
		return ""
	}
	ii, err := BuildInteractive(Opencode, InteractiveRequest{MCP: hub, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Model string                     `json:"model"`
		MCP   map[string]json.RawMessage `json:"mcp"`
	}
	if len(ii.Env) != 1 || json.Unmarshal([]byte(strings.TrimPrefix(ii.Env[0], "OPENCODE_CONFIG_CONTENT=")), &cfg) != nil {
		t.Fatalf("env %q", ii.Env)
	}
	if cfg.Model != "x/y" || len(cfg.MCP) != 2 || cfg.MCP["mine"] == nil || cfg.MCP["csa"] == nil {
		t.Fatalf("merged %+v", cfg)
	}
	bad := func(string) string { return "not json" }
	if _, err := (opencode{}).Build(Request{Prompt: "hi", MCP: hub, Getenv: bad}); err == nil {
		t.Fatal("a value that is not JSON must be refused, not replaced")
	}
}

// TestNoMCPNoChange: without servers every invocation is what it was, and
// the programs without a way to take them get nothing.
func TestNoMCPNoChange(t *testing.T) {
	for _, s := range Registry {
		plain, err := s.Adapter.Build(Request{Prompt: "hi"})
		if err != nil {
			t.Fatal(err)
		}
		with, err := s.Adapter.Build(Request{Prompt: "hi", MCP: hub})
		if err != nil {
			t.Fatal(err)
		}
		if !s.MCPClient && (!slices.Equal(plain.Args, with.Args) || !slices.Equal(plain.Env, with.Env)) {
			t.Errorf("%s takes no MCP servers but its invocation changed: %q %q", s.Tool, with.Args, with.Env)
		}
		if s.MCPClient && slices.Equal(plain.Args, with.Args) && slices.Equal(plain.Env, with.Env) {
			t.Errorf("%s takes MCP servers but was given none", s.Tool)
		}
		for _, a := range plain.Args {
			if strings.Contains(a, "mcp") {
				t.Errorf("%s without servers: %q", s.Tool, plain.Args)
			}
		}
	}
}
