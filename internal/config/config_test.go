package config

import (
	"reflect"
	"testing"
	"time"
)

func TestTool(t *testing.T) {
	c := Default()
	c.Tools.Codex = ToolConfig{Path: "/opt/codex", Model: "m", Enabled: true, Env: map[string]string{"A": "1"}}
	c.Tools.GeminiCLI = ToolConfig{}
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
	if c.Tools.Codex.Env["A"] != "1" {
		t.Error("Tool shares its Env map")
	}
}

func TestToolsMatchSchema(t *testing.T) {
	typ := reflect.TypeFor[ToolsConfig]()
	if typ.NumField() != len(Tools()) {
		t.Fatalf("ToolsConfig has %d fields, Tools %d entries", typ.NumField(), len(Tools()))
	}
	var c ToolsConfig
	for i, info := range Tools() {
		if got := tagName(typ.Field(i)); got != info.Name {
			t.Errorf("field %d has key %q, want %q", i, got, info.Name)
		}
		if c.get(info.Name) == nil {
			t.Errorf("get(%q) = nil", info.Name)
		}
		if info.Program == "" || info.NPMPackage == "" || info.Family == "" {
			t.Errorf("incomplete: %+v", info)
		}
	}
	if got := ToolNames(); !reflect.DeepEqual(got, []string{"claude-code", "codex", "gemini-cli", "opencode"}) {
		t.Errorf("ToolNames() = %v", got)
	}
	if info, ok := LookupTool("opencode"); !ok || info.InstallHint() != "npm install -g opencode-ai" || info.Family != FamilyByModel {
		t.Errorf("LookupTool(opencode) = %+v, %v", info, ok)
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
