package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// files writes the non-empty contents to a global and a project file in a
// fresh directory and returns their paths; an empty content means no file.
func files(t testing.TB, global, proj string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	g := filepath.Join(dir, "global", "config.toml")
	p := filepath.Join(dir, "proj", ".csa", "config.toml")
	for path, s := range map[string]string{g: global, p: proj} {
		if s == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return g, p
}

func mustLoad(t testing.TB, global, proj string) *Loaded {
	t.Helper()
	g, p := files(t, global, proj)
	l, err := LoadFiles(g, p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestDefaults(t *testing.T) {
	for _, paths := range [][2]string{{"", ""}, {"/nonexistent/a.toml", "/nonexistent/b.toml"}} {
		l, err := LoadFiles(paths[0], paths[1])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(l.Config, Default()) {
			t.Errorf("LoadFiles(%q) = %+v, want defaults", paths, l.Config)
		}
		want := []Source{{paths[0], ScopeGlobal, false}, {paths[1], ScopeProject, false}}
		if !reflect.DeepEqual(l.Sources, want) {
			t.Errorf("Sources = %+v, want %+v", l.Sources, want)
		}
	}

	c := Default()
	if c.MaxRecursionDepth != 5 || c.Defaults.KillGrace.Std() != 5*time.Second ||
		c.Defaults.Timeout != 0 || c.Defaults.IdleTimeout != 0 || c.Defaults.Tool != "" ||
		c.GC.MaxAgeDays != 30 || c.Output.MaxLogBytes != 1<<30 {
		t.Errorf("Default() = %+v", c)
	}
	if ps := c.validate(); len(ps) > 0 {
		t.Errorf("defaults are invalid: %v", ps)
	}
}

func TestLoadUsesGlobalAndProjectPaths(t *testing.T) {
	home := t.TempDir()
	root := t.TempDir()
	t.Setenv("CSA_CONFIG_HOME", home)
	write := func(path, s string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "config.toml"), "max_recursion_depth = 3\n[gc]\nmax_age_days = 7\n")
	write(filepath.Join(root, ".csa", "config.toml"), "max_recursion_depth = 2\n")

	l, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if l.Config.MaxRecursionDepth != 2 || l.Config.GC.MaxAgeDays != 7 {
		t.Errorf("got %+v", l.Config)
	}
	want := []Source{
		{filepath.Join(home, "config.toml"), ScopeGlobal, true},
		{filepath.Join(root, ".csa", "config.toml"), ScopeProject, true},
	}
	if !reflect.DeepEqual(l.Sources, want) {
		t.Errorf("Sources = %+v, want %+v", l.Sources, want)
	}
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name         string
		global, proj string
		check        func(c Config) bool
	}{
		{
			name:   "project wins at the top level",
			global: "max_recursion_depth = 3",
			proj:   "max_recursion_depth = 9",
			check:  func(c Config) bool { return c.MaxRecursionDepth == 9 },
		},
		{
			name:   "global alone applies over defaults",
			global: "[defaults]\ntool = \"codex\"\ntimeout = \"10m\"",
			check: func(c Config) bool {
				return c.Defaults.Tool == "codex" && c.Defaults.Timeout.Std() == 10*time.Minute &&
					c.Defaults.KillGrace.Std() == 5*time.Second
			},
		},
		{
			name:   "tables merge key by key",
			global: "[defaults]\ntool = \"codex\"\nkill_grace = \"2s\"",
			proj:   "[defaults]\nidle_timeout = \"1m\"\nkill_grace = \"3s\"",
			check: func(c Config) bool {
				d := c.Defaults
				return d.Tool == "codex" && d.IdleTimeout.Std() == time.Minute && d.KillGrace.Std() == 3*time.Second
			},
		},
		{
			name:   "nested tables merge recursively",
			global: "[tools.codex]\npath = \"/opt/codex\"\nmodel = \"a\"\n[tools.codex.env]\nA = \"1\"\nB = \"2\"",
			proj:   "[tools.codex]\nmodel = \"b\"\nenv = { B = \"3\" }\n[tools.gemini-cli]\nenabled = false",
			check: func(c Config) bool {
				x := c.Tools["codex"]
				return x.Path == "/opt/codex" && x.Model == "b" && x.Enabled &&
					reflect.DeepEqual(x.Env, map[string]string{"A": "1", "B": "3"}) &&
					!c.Tools["gemini-cli"].Enabled && c.Tools["gemini-cli"].Path == "gemini"
			},
		},
		{
			name:   "dotted keys merge like tables",
			global: "tools.opencode.model = \"x\"\ntools.opencode.path = \"/p\"",
			proj:   "tools.opencode.model = \"y\"",
			check: func(c Config) bool {
				return c.Tools["opencode"].Model == "y" && c.Tools["opencode"].Path == "/p"
			},
		},
		{
			name:   "empty string unsets a duration",
			global: "[defaults]\ntimeout = \"10m\"",
			proj:   "[defaults]\ntimeout = \"\"",
			check:  func(c Config) bool { return c.Defaults.Timeout == 0 },
		},
		{
			name:   "empty project file changes nothing",
			global: "[output]\nmax_log_bytes = 1024",
			proj:   "# nothing\n",
			check:  func(c Config) bool { return c.Output.MaxLogBytes == 1024 },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLoad(t, tt.global, tt.proj)
			if !tt.check(l.Config) {
				t.Errorf("got %+v", l.Config)
			}
		})
	}
}

// TestMergeArrays checks the merge mechanism (decoding each file over the
// result of the previous ones) on a schema with arrays, which Config does
// not have yet: arrays and arrays of tables are replaced, not appended,
// while maps, including nested ones, merge.
func TestMergeArrays(t *testing.T) {
	type item struct {
		N int `toml:"n"`
		M int `toml:"m"`
	}
	type schema struct {
		Args  []string       `toml:"args"`
		Items []item         `toml:"items"`
		Any   map[string]any `toml:"any"`
	}
	var s schema
	for _, doc := range []string{
		"args = [\"a\", \"b\"]\n[any.t]\nx = 1\nl = [1, 2]\n[[items]]\nn = 1\n[[items]]\nn = 2",
		"args = [\"c\"]\n[any.t]\ny = 2\nl = [3]\n[[items]]\nm = 5",
	} {
		if err := decodeStrict([]byte(doc), &s); err != nil {
			t.Fatal(err)
		}
	}
	want := schema{
		Args:  []string{"c"},
		Items: []item{{M: 5}},
		Any:   map[string]any{"t": map[string]any{"x": int64(1), "y": int64(2), "l": []any{int64(3)}}},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v\nwant %+v", s, want)
	}
}

func TestErrors(t *testing.T) {
	const valid = "valid tools: claude-code, codex, gemini-cli, opencode, csa-agent"
	tests := []struct {
		name         string
		global, proj string
		want         string // with G and P for the file paths
		kind         ErrorKind
		key          string
	}{
		{"malformed toml", "", "[defaults\ntool = \"x\"\n",
			`P:1:10: invalid toml: expected character ]`, KindSyntax, ""},
		{"unquoted string", "", "[defaults]\ntool = codex\n",
			`P:2:8: value must be quoted: tool = "codex"`, KindSyntax, ""},
		{"unquoted string with a comment", "", "[tools.codex]\npath =  /opt/codex/bin/codex # mine\n",
			`P:2:9: value must be quoted: path = "/opt/codex/bin/codex"`, KindSyntax, ""},
		{"unquoted duration", "", "[defaults]\ntimeout = 10m\n",
			`P:2:11: value must be quoted: timeout = "10m"`, KindSyntax, ""},
		{"missing value", "", "[defaults]\ntool =\n",
			`P:2:7: invalid toml: incomplete number`, KindSyntax, ""},
		{"key defined twice", "", "max_recursion_depth = 1\nmax_recursion_depth = 2\n",
			`P:2: invalid toml: key max_recursion_depth is already defined`, KindSyntax, ""},
		{"unknown top-level key", "", "max_depth = 3\n",
			`P:1:1: unknown key "max_depth"`, KindUnknownKey, "max_depth"},
		{"unknown nested key", "", "[tools.codex]\npath = \"x\"\npth = \"y\"\n",
			`P:3:1: unknown key "tools.codex.pth"`, KindUnknownKey, "tools.codex.pth"},
		{"unknown table", "", "[output]\n[logging]\nlevel = 1\n",
			`P:2:2: unknown key "logging"`, KindUnknownKey, "logging"},
		{"unknown tool table", "", "[tools.foo]\npath = \"x\"\n",
			`P:1:2: unknown key "tools.foo": not a tool (` + valid + `)`, KindUnknownKey, "tools.foo"},
		{"unknown key in the global file", "[gc]\nmax_age = 3\n", "",
			`G:2:1: unknown key "gc.max_age"`, KindUnknownKey, "gc.max_age"},
		{"wrong type: string for integer", "", "\nmax_recursion_depth = \"5\"\n",
			`P:2:23: wrong type for "max_recursion_depth": expected an integer, got a string`, KindType, "max_recursion_depth"},
		{"wrong type: array for string", "", "[tools.codex]\npath = [\"a\"]\n",
			`P:2:1: wrong type for "tools.codex.path": expected a string, got an array`, KindType, "tools.codex.path"},
		{"wrong type: table for string", "", "[defaults.tool]\nx = 1\n",
			`P:1:2: wrong type for "defaults.tool": expected a string, got a table`, KindType, "defaults.tool"},
		{"wrong type: integer for boolean", "", "[tools.claude-code]\nenabled = 1\n",
			`P:2:11: wrong type for "tools.claude-code.enabled": expected a boolean, got an integer`, KindType, "tools.claude-code.enabled"},
		{"wrong type: integer for duration", "", "[defaults]\ntimeout = 30\n",
			`P:2:11: wrong type for "defaults.timeout": expected a duration string such as "30s", got an integer`, KindType, "defaults.timeout"},
		{"wrong type: date for integer", "", "[gc]\nmax_age_days = 1979-05-27\n",
			`P:2:1: wrong type for "gc.max_age_days": expected an integer, got a date-time`, KindType, "gc.max_age_days"},
		{"wrong type in an inline table", "", "tools.codex = { model = \"m\", env = { A = 1 } }\n",
			`P:1:42: wrong type for "tools.codex.env.A": expected a string, got an integer`, KindType, "tools.codex.env.A"},
		{"bad duration", "", "[defaults]\ntimeout = \"5x\"\n",
			`P:2:11: invalid value for "defaults.timeout": invalid duration "5x" (want e.g. "30s", "5m", "1h30m")`, KindValue, "defaults.timeout"},
		{"zero duration", "", "[defaults]\nidle_timeout = \"0s\"\n",
			`P:2:16: invalid value for "defaults.idle_timeout": duration "0s" must be positive (use "" for none)`, KindValue, "defaults.idle_timeout"},
		{"negative duration", "", "[defaults]\nkill_grace = \"-1s\"\n",
			`P:2:14: invalid value for "defaults.kill_grace": duration "-1s" must be positive (use "" for none)`, KindValue, "defaults.kill_grace"},
		{"unset kill grace", "", "[defaults]\nkill_grace = \"\"\n",
			`P:2:14: invalid value for "defaults.kill_grace": must be a positive duration such as "5s"`, KindValue, "defaults.kill_grace"},
		{"recursion depth out of range", "", "max_recursion_depth = 101\n",
			`P:1:23: invalid value for "max_recursion_depth": 101 is out of range 0..100`, KindValue, "max_recursion_depth"},
		{"negative recursion depth", "max_recursion_depth = -1\n", "",
			`G:1:23: invalid value for "max_recursion_depth": -1 is out of range 0..100`, KindValue, "max_recursion_depth"},
		{"unknown default tool", "", "[defaults]\ntool = \"claude\"\n",
			`P:2:8: invalid value for "defaults.tool": unknown tool "claude" (` + valid + `)`, KindValue, "defaults.tool"},
		{"bad env name", "", "[tools.codex.env]\n\"A=B\" = \"x\"\n",
			`P:2:9: invalid value for "tools.codex.env.\"A=B\"": not a valid environment variable name`, KindValue, `tools.codex.env."A=B"`},
		{"gc age", "", "[gc]\nmax_age_days = 0\n",
			`P:2:16: invalid value for "gc.max_age_days": 0 must be at least 1`, KindValue, "gc.max_age_days"},
		{"log cap", "", "output.max_log_bytes = -5\n",
			`P:1:24: invalid value for "output.max_log_bytes": -5 must be at least 1`, KindValue, "output.max_log_bytes"},
		{"unknown branch placeholder", "", "[defaults]\nworktree_branch = \"agents/{user}/{id}\"\n",
			`P:2:19: invalid value for "defaults.worktree_branch": unknown placeholder {user} in "agents/{user}/{id}" (known: {id}, {tool}, {date})`, KindValue, "defaults.worktree_branch"},
		{"empty branch template", "", "[defaults]\nworktree_branch = \" \"\n",
			`P:2:19: invalid value for "defaults.worktree_branch": empty: a branch needs a name`, KindValue, "defaults.worktree_branch"},
		{"unknown placeholder in a tool's branch", "", "[tools.codex]\nworktree_branch = \"{tool}/{ID}\"\n",
			`P:2:19: invalid value for "tools.codex.worktree_branch": unknown placeholder {ID} in "{tool}/{ID}" (known: {id}, {tool}, {date})`, KindValue, "tools.codex.worktree_branch"},
		{"wrong type: boolean for string", "", "[defaults]\nworktree_branch = true\n",
			`P:2:1: wrong type for "defaults.worktree_branch": expected a string, got a boolean`, KindType, "defaults.worktree_branch"},
		{"wrong type: string for submodules", "", "[tools.codex]\nworktree_submodules = \"yes\"\n",
			`P:2:23: wrong type for "tools.codex.worktree_submodules": expected a boolean, got a string`, KindType, "tools.codex.worktree_submodules"},
		{"valid global, bad project", "[defaults]\ntool = \"codex\"\n", "[defaults]\ntool = \"x\"\n",
			`P:2:8: invalid value for "defaults.tool": unknown tool "x" (` + valid + `)`, KindValue, "defaults.tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, p := files(t, tt.global, tt.proj)
			l, err := LoadFiles(g, p)
			if err == nil {
				t.Fatalf("no error; config %+v", l.Config)
			}
			want := strings.NewReplacer("G:", g+":", "P:", p+":").Replace(tt.want)
			if err.Error() != want {
				t.Errorf("error\n got %s\nwant %s", err, want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not a *Error", err)
			}
			if e.Kind != tt.kind || e.Key != tt.key {
				t.Errorf("Kind, Key = %q, %q; want %q, %q", e.Kind, e.Key, tt.kind, tt.key)
			}
		})
	}
}

func TestSeveralErrors(t *testing.T) {
	_, p := files(t, "", "a = 1\n[tools.codex]\nmodel = 3\nb = 2\n")
	_, err := LoadFiles("", p)
	want := strings.Join([]string{
		p + `:1:1: unknown key "a"`,
		p + `:3:9: wrong type for "tools.codex.model": expected a string, got an integer`,
		p + `:4:1: unknown key "tools.codex.b"`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}

	_, p = files(t, "", "x = 1\ny = 2\n")
	_, err = LoadFiles("", p)
	if err == nil || err.Error() != p+":1:1: unknown key \"x\"\n"+p+":2:1: unknown key \"y\"" {
		t.Errorf("error: %v", err)
	}
}

func TestReadError(t *testing.T) {
	dir := t.TempDir() // a directory where a file is expected
	_, err := LoadFiles(dir, "")
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindRead || e.Path != dir || e.Line != 0 {
		t.Fatalf("err = %#v", err)
	}
	if !strings.HasPrefix(err.Error(), dir+": cannot read config: ") {
		t.Errorf("err = %v", err)
	}
}

func TestGlobalPath(t *testing.T) {
	home := func() (string, error) { return "/home/ann", nil }
	noHome := func() (string, error) { return "", errors.New("no home") }
	tests := []struct {
		env  map[string]string
		home func() (string, error)
		want string
	}{
		{map[string]string{"CSA_CONFIG_HOME": "/c", "XDG_CONFIG_HOME": "/x"}, home, "/c/config.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "/x"}, home, "/x/csa/config.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "rel"}, home, "/home/ann/.config/csa/config.toml"},
		{nil, home, "/home/ann/.config/csa/config.toml"},
		{nil, noHome, ""},
	}
	for _, tt := range tests {
		if got := globalPath(func(k string) string { return tt.env[k] }, tt.home); got != tt.want {
			t.Errorf("globalPath(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
	if got := ProjectPath("/p"); got != "/p/.csa/config.toml" {
		t.Errorf("ProjectPath = %q", got)
	}
	if got := ProjectPath(""); got != "" {
		t.Errorf("ProjectPath(\"\") = %q", got)
	}
}

func TestGet(t *testing.T) {
	l := mustLoad(t, "[tools.codex]\nmodel = \"gpt\"\n[tools.codex.env]\nK = \"v\"", "[defaults]\ntimeout = \"90s\"")
	tests := []struct {
		key  string
		want any
	}{
		{"max_recursion_depth", int64(5)},
		{"tools.codex.path", "codex"},
		{"tools.codex.model", "gpt"},
		{"tools.codex.enabled", true},
		{"tools.codex.env.K", "v"},
		{"tools.codex.env", map[string]any{"K": "v"}},
		{"tools.opencode.env", map[string]any{}},
		{"defaults.timeout", "1m30s"},
		{"defaults.idle_timeout", ""},
		{"defaults", map[string]any{"tool": "", "timeout": "1m30s", "idle_timeout": "", "kill_grace": "5s", "worktree": false,
			"worktree_branch": "csa/{id}", "worktree_submodules": false}},
		{"gc", map[string]any{"max_age_days": int64(30)}},
		{"output.max_log_bytes", int64(1 << 30)},
	}
	for _, tt := range tests {
		got, err := l.Get(tt.key)
		if err != nil {
			t.Errorf("Get(%q): %v", tt.key, err)
		} else if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Get(%q) = %#v, want %#v", tt.key, got, tt.want)
		}
	}
	for _, key := range []string{"", "nope", "tools.codex.pth", "tools.foo", "max_recursion_depth.x", "tools.codex.env.MISSING", "defaults."} {
		_, err := l.Get(key)
		if !errors.Is(err, ErrUnknownKey) {
			t.Errorf("Get(%q) error = %v, want ErrUnknownKey", key, err)
		} else if want := `unknown config key "` + key + `"`; err.Error() != want {
			t.Errorf("Get(%q) error = %q, want %q", key, err, want)
		}
	}
}

func TestMapJSON(t *testing.T) {
	l, err := LoadFiles("", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(l.Map())
	if err != nil {
		t.Fatal(err)
	}
	tool := func(p, acp string) string {
		return `{"acp_path":"` + acp + `","effort":"","enabled":true,"env":{},"isolate":"","max_concurrent":0,"model":"","path":"` + p + `","resources":{},"transport":"cli","worktree":false,"worktree_branch":"","worktree_submodules":false,"yolo":true}`
	}
	want := `{"aliases":{},"cluster":{"credentials":"","default":"local","remote":"","tls_ca":"","tls_cert":"","tls_key":"","url":""},"defaults":{"idle_timeout":"","kill_grace":"5s","timeout":"","tool":"","worktree":false,"worktree_branch":"csa/{id}","worktree_submodules":false},` +
		`"failover":{"agent_retries":2,"backoff":"2s","cooldown":"1m0s","retries":2},` +
		`"gc":{"max_age_days":30},"interactive":{"grace":"5s","height":50,"quiet":"3s","stuck_after":"5m0s","width":200},"max_recursion_depth":5,"mcp":{"enabled":true,"idle_exit":"10m0s","servers":{}},"output":{"max_log_bytes":1073741824},"prices":{},` +
		`"resources":{"enforcement_mode":"BestEffort","initial_estimates":{"claude-code":4096,"codex":4096,"csa-agent":512,"gemini-cli":1024,"opencode":1536},` +
		`"memory_max_mb":0,"memory_swap_max_mb":0,"min_free_memory_mb":512,"pids_max":0,"sample_interval":"500ms","sandbox":"auto"},` +
		`"review":{"consensus":"majority","reviewers":2,"weights":{}},"sandbox":{"allow_hosts":[],"allow_write":[],"deny_read":[],"fs":false,"mode":"best-effort","net":false},"tiers":{},` +
		`"tools":{"claude-code":` + tool("claude", "claude-code-acp") + `,"codex":` + tool("codex", "codex-acp") +
		`,"csa-agent":` + tool("csa-agent", "csa-agent") + `,"gemini-cli":` + tool("gemini", "") + `,"opencode":` + tool("opencode", "") + `}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	// The map is the caller's own.
	l.Map()["gc"].(map[string]any)["max_age_days"] = 1
	if v, _ := l.Get("gc.max_age_days"); v != int64(30) {
		t.Errorf("Map shares state: %v", v)
	}
}
