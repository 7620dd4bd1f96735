package config

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/agents"
)

func TestTool(t *testing.T) {
	c := Default()
	c.Tools["codex"] = ToolConfig{Path: "/opt/codex", Model: "m", Enabled: true, Env: map[string]string{"A": "1"}}
	c.Tools["gemini-cli"] = ToolConfig{}
	if got := c.Tool("codex"); got.Path != "/opt/codex" || got.Model != "m" || !got.Enabled || got.Env["A"] != "1" {
		t.Errorf("codex: %+v", got)
	}
	if got := c.Tool("gemini-cli"); got.Path != "gemini" || got.Enabled { // "" path: the program name
		t.Errorf("gemini-cli: %+v", got)
	}
	if got := c.Tool("claude-code"); got.Path != "claude" || !got.Enabled || got.Env != nil {
		t.Errorf("claude-code: %+v", got)
	}
	if got := c.Tool("nope"); !reflect.DeepEqual(got, ToolConfig{}) {
		t.Errorf("unknown tool: %+v", got)
	}
	c.Tool("codex").Env["A"] = "changed"
	if c.Tools["codex"].Env["A"] != "1" {
		t.Error("Tool shares its Env map")
	}
}

func TestToolsFromRegistry(t *testing.T) {
	c := Default()
	if len(c.Tools) != len(agents.Registry) {
		t.Fatalf("Default has %d tool tables, the registry %d tools", len(c.Tools), len(agents.Registry))
	}
	for _, s := range agents.Registry {
		tc := c.Tool(string(s.Tool))
		if tc.Path != s.Program.Name || !tc.Enabled || c.Resources.InitialEstimates[string(s.Tool)] != s.InitialEstimateMB {
			t.Errorf("%s: %+v", s.Tool, tc)
		}
	}
	for doc, want := range map[string]string{
		"[tools.aider]\npath = \"x\"\n": `unknown key "tools.aider": not a tool`,
		"[tools.aider]\nbogus = 1\n":    `unknown key "tools.aider": not a tool`,
	} {
		g, p := files(t, "", doc)
		if _, err := LoadFiles(g, p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", doc, err, want)
		}
	}
}

// TestSchemaTags makes sure every field of the schema has a key, since
// the error diagnosis and Map only see tagged fields.
func TestSchemaTags(t *testing.T) {
	var walk func(typ reflect.Type)
	walk = func(typ reflect.Type) {
		if typ.Kind() != reflect.Struct || typ == reflect.TypeFor[Duration]() {
			return
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			if tagName(f) == "" {
				t.Errorf("%s.%s has no toml tag", typ, f.Name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[Config]())
}

func TestDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"", 0, ""},
		{"5s", 5 * time.Second, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"250ms", 250 * time.Millisecond, ""},
		{"0s", 0, `duration "0s" must be positive (use "" for none)`},
		{"-1m", 0, `duration "-1m" must be positive (use "" for none)`},
		{"5", 0, `invalid duration "5" (want e.g. "30s", "5m", "1h30m")`},
		{"five", 0, `invalid duration "five" (want e.g. "30s", "5m", "1h30m")`},
	}
	for _, tt := range tests {
		var d Duration
		err := d.UnmarshalText([]byte(tt.in))
		switch {
		case tt.wantErr != "":
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("UnmarshalText(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("UnmarshalText(%q): %v", tt.in, err)
		case d.Std() != tt.want:
			t.Errorf("UnmarshalText(%q) = %v, want %v", tt.in, d.Std(), tt.want)
		default:
			// Round trip: "" stays "", others parse back to the same value.
			b, _ := d.MarshalText()
			var back Duration
			if err := back.UnmarshalText(b); err != nil || back != d {
				t.Errorf("round trip of %q via %q = %v, %v", tt.in, b, back, err)
			}
		}
	}
}
