package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/config"
)

func writeJSON(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// A name defined in several scopes takes the highest scope's definition:
// enterprise, --mcp-config, local, project (the closest .mcp.json), user
// (~/.claude.json, then config.toml).
func TestScopePriority(t *testing.T) {
	dir := t.TempDir()
	home, root := filepath.Join(dir, "home"), filepath.Join(dir, "repo")
	cwd := filepath.Join(root, "sub")
	managed := filepath.Join(dir, "managed-mcp.json")
	// Each scope defines "s-SCOPE" and every name of the scopes below it.
	writeJSON(t, managed, `{"mcpServers": {"a": {"command": "enterprise"}}}`)
	flag := `{"mcpServers": {"a": {"command": "dynamic"}, "b": {"command": "dynamic"}}}`
	writeJSON(t, filepath.Join(home, ".claude.json"), `{
		"mcpServers": {"a": {"command": "user"}, "b": {"command": "user"}, "c": {"command": "user"},
			"d": {"command": "user"}, "e": {"command": "user"}, "f": {"command": "user"}},
		"projects": {"`+root+`": {"mcpServers": {"a": {"command": "local"}, "b": {"command": "local"}, "c": {"command": "local"}}},
			"/elsewhere": {"mcpServers": {"x": {"command": "other project"}}}}}`)
	writeJSON(t, filepath.Join(cwd, ".mcp.json"), `{"mcpServers": {"c": {"command": "project-sub"}, "d": {"command": "project-sub"}}}`)
	writeJSON(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"d": {"command": "project-root"}, "e": {"command": "project-root"}}}`)
	cfg := &config.Config{MCPServers: map[string]config.MCPServer{
		"f": {Command: "toml"}, "g": {URL: "http://h/mcp", StartupTimeout: 2}}}
	src := Sources{Home: home, Cwd: cwd, ProjectRoot: root, ManagedPath: managed, Flags: []string{flag},
		Config: cfg, Getenv: env(nil)}
	servers, warnings, err := Load(src)
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	got := map[string]string{}
	for _, s := range servers {
		got[s.Name] = string(s.Scope) + ":" + s.Command + s.URL
	}
	want := map[string]string{"a": "enterprise:enterprise", "b": "dynamic:dynamic", "c": "local:local",
		"d": "project:project-sub", "e": "project:project-root", "f": "user:user", "g": "user:http://h/mcp"}
	if len(got) != len(want) {
		t.Fatalf("servers %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	for _, s := range servers {
		if s.Name == "g" && (s.Type != TypeHTTP || s.StartupTimeout.Seconds() != 2) {
			t.Errorf("toml server %+v", s)
		}
	}

	// --strict-mcp-config: only --mcp-config.
	src.Strict = true
	servers, _, _ = Load(src)
	if len(servers) != 2 || servers[0].Scope != ScopeDynamic || servers[1].Scope != ScopeDynamic {
		t.Fatalf("strict: %+v", servers)
	}

	// Disabled by name (flag or config) or in the entry.
	src.Strict = false
	src.Disabled = []string{"b"}
	cfg.DisabledMCPServers = []string{"c"}
	writeJSON(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"e": {"command": "x", "disabled": true}}}`)
	servers, _, _ = Load(src)
	off := map[string]bool{}
	for _, s := range servers {
		off[s.Name] = s.Disabled
	}
	if !off["b"] || !off["c"] || !off["e"] || off["a"] || off["d"] {
		t.Fatalf("disabled: %v", off)
	}
}

// ${VAR} and ${VAR:-default} as Claude Code expands them, in command,
// args, env, url and headers; a variable without a value or default makes
// that server fail with a message naming it.
func TestExpansion(t *testing.T) {
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {
		"s": {"command": "${BIN}/srv", "args": ["--db=${DB:-/tmp/db}", "${BIN}${BIN}", "$BIN"], "env": {"TOKEN": "${TOKEN}"}},
		"h": {"type": "http", "url": "https://${HOST:-example.com}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
		"m": {"command": "x", "args": ["${NOPE}", "${ALSO_NOPE:-}"]}}}`)
	servers, warnings, err := Load(Sources{Cwd: dir, ProjectRoot: dir, Getenv: env(map[string]string{"BIN": "/opt", "TOKEN": "t0k"})})
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	by := map[string]Server{}
	for _, s := range servers {
		by[s.Name] = s
	}
	s := by["s"]
	if s.Command != "/opt/srv" || strings.Join(s.Args, " ") != "--db=/tmp/db /opt/opt $BIN" || s.Env["TOKEN"] != "t0k" || s.Problem != "" {
		t.Errorf("stdio: %+v", s)
	}
	h := by["h"]
	if h.URL != "https://example.com/mcp" || h.Headers["Authorization"] != "Bearer t0k" {
		t.Errorf("http: %+v", h)
	}
	m := by["m"]
	if !strings.Contains(m.Problem, "missing environment variables: NOPE") || strings.Contains(m.Problem, "ALSO_NOPE") || m.Args[0] != "${NOPE}" || m.Args[1] != "" {
		t.Errorf("missing: %+v", m)
	}
}

// A bad --mcp-config is an error; a broken file or entry elsewhere is a
// warning and the rest still loads.
func TestBadConfiguration(t *testing.T) {
	dir := t.TempDir()
	for _, flag := range []string{`{"mcpServers": `, filepath.Join(dir, "missing.json"),
		`{"mcpServers": {"x": {"type": "ws", "url": "ws://h"}}}`, `{"mcpServers": {"x": {"args": ["a"]}}}`} {
		if _, _, err := Load(Sources{Flags: []string{flag}, Getenv: env(nil)}); err == nil {
			t.Errorf("--mcp-config %s accepted", flag)
		}
	}
	home := filepath.Join(dir, "home")
	writeJSON(t, filepath.Join(home, ".claude.json"), `{"mcpServers": {"u": {"command": "ok"}}}`)
	writeJSON(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"bad": {"type": "sse"}, "good": {"command": "c"}}}`)
	servers, warnings, err := Load(Sources{Home: home, Cwd: dir, ProjectRoot: dir, Getenv: env(nil)})
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0].Error(), `server "bad": a sse server needs a url`) {
		t.Fatalf("warnings %v, err %v", warnings, err)
	}
	if len(servers) != 2 || servers[0].Name != "good" || servers[1].Name != "u" {
		t.Fatalf("servers %+v", servers)
	}
	writeJSON(t, filepath.Join(dir, ".mcp.json"), `not json`)
	if servers, warnings, _ := Load(Sources{Home: home, Cwd: dir, ProjectRoot: dir, Getenv: env(nil)}); len(warnings) != 1 || len(servers) != 1 {
		t.Fatalf("a broken .mcp.json: %v %+v", warnings, servers)
	}
}

func TestToolName(t *testing.T) {
	if got := ToolName("my server.v2", "get-sum"); got != "mcp__my_server_v2__get-sum" {
		t.Fatal(got)
	}
	if got := ServerOf("mcp__files__read"); got != "files" {
		t.Fatal(got)
	}
	if ServerOf("Read") != "" {
		t.Fatal("Read is no MCP tool")
	}
}
