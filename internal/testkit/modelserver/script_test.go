package modelserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const exampleScript = `
default_text = "nothing scripted"

[[rule]]
name = "hello"
contains = "say hello"
  [[rule.step]]
  text = "hello there"

[[rule]]
name = "flaky"
regexp = '^flaky \d+$'
api = "anthropic"
  [[rule.step]]
  error = "rate_limit"
  times = 2
  retry_after = 3
  [[rule.step]]
  text = "recovered"
  [[rule.step]]
  shell = "echo hi > f"
  [[rule.step]]
  error = "overloaded"
`

func TestParseExample(t *testing.T) {
	s, err := Parse([]byte(exampleScript))
	if err != nil {
		t.Fatal(err)
	}
	if s.defaultText() != "nothing scripted" || len(s.Rules) != 2 {
		t.Fatalf("parsed %+v", s)
	}
	flaky := s.Rules[1]
	if flaky.re == nil || flaky.Steps[0].Times != 2 || flaky.Steps[2].Shell != "echo hi > f" {
		t.Errorf("flaky rule = %+v", flaky)
	}
}

// The example in the package doc (kept in testdata) must stay valid.
func TestDocExample(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "example.toml"))
	if err != nil {
		t.Fatal(err)
	}
	r := s.Rules[0]
	if start, end, _ := r.slot(0); start != 0 || end != 1 || r.Steps[end].WriteFile == nil {
		t.Errorf("turn 0 = steps[%d:%d] of %+v", start, end, r.Steps)
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.toml")
	if err := os.WriteFile(path, []byte(exampleScript), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path + ".missing"); err == nil {
		t.Error("loading a missing file succeeded")
	}
}

func TestParseErrors(t *testing.T) {
	tests := map[string]struct{ script, want string }{
		"unknown key":       {"[[rule]]\ncontains='x'\n[[rule.step]]\ntxt='a'\n", "txt"},
		"bad toml":          {"[[rule]\n", "line 1"},
		"both matchers":     {"[[rule]]\ncontains='x'\nregexp='y'\n[[rule.step]]\ntext='a'\n", "not both"},
		"bad regexp":        {"[[rule]]\nregexp='('\n[[rule.step]]\ntext='a'\n", "missing closing"},
		"no steps":          {"[[rule]]\ncontains='x'\n", "no steps"},
		"empty step":        {"[[rule]]\ncontains='x'\n[[rule.step]]\ndelay_ms=3\n", "empty step"},
		"two calls":         {"[[rule]]\n[[rule.step]]\nshell='ls'\nwrite_file={path='a',content=''}\n", "at most one"},
		"error with answer": {"[[rule]]\n[[rule.step]]\nerror='rate_limit'\ntext='a'\n", "cannot also answer"},
		"unknown error":     {"[[rule]]\n[[rule.step]]\nerror='boom'\n", "unknown error kind"},
		"unknown api":       {"[[rule]]\napi='cohere'\n[[rule.step]]\ntext='a'\n", "unknown api"},
		"call without name": {"[[rule]]\n[[rule.step]]\ncall={args={a=1}}\n", "without a name"},
		"calls and call":    {"[[rule]]\n[[rule.step]]\ncall={name='a'}\ncalls=[{name='b'}]\n", "at most one"},
		"calls no name":     {"[[rule]]\n[[rule.step]]\ncalls=[{name='a'},{args={a=1}}]\n", "without a name"},
		"error thinking":    {"[[rule]]\n[[rule.step]]\nerror='stall'\nthinking='hm'\n", "cannot also answer"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tt.script))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestRuleMatches(t *testing.T) {
	s := &Script{Rules: []Rule{
		{Contains: "alpha", Steps: []Step{{Text: "a"}}},
		{Regexp: `^beta \d$`, API: APIGemini, Steps: []Step{{Text: "b"}}},
		{Contains: "gamma", Model: "opus", Steps: []Step{{Text: "c"}}},
	}}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule             int
		api, model, text string
		want             bool
	}{
		{0, APIChat, "m", "say alpha now", true},
		{0, APIChat, "m", "say Alpha now", false},
		{1, APIGemini, "m", "beta 1", true},
		{1, APIAnthropic, "m", "beta 1", false},
		{1, APIGemini, "m", "beta 12", false},
		{2, APIAnthropic, "claude-opus-4", "gamma", true},
		{2, APIAnthropic, "claude-haiku", "gamma", false},
	}
	for _, tt := range tests {
		if got := s.Rules[tt.rule].matches(tt.api, tt.model, tt.text, nil); got != tt.want {
			t.Errorf("rule %d matches(%q, %q, %q) = %v", tt.rule, tt.api, tt.model, tt.text, got)
		}
	}
}

func TestRuleSlot(t *testing.T) {
	r := Rule{Steps: []Step{
		{Error: ErrRateLimit, Times: 1}, // 0
		{Text: "first"},                 // 1
		{Shell: "ls"},                   // 2
		{Error: ErrStatus},              // 3
		{Error: ErrOverloaded},          // 4
		{Text: "last"},                  // 5
		{Error: ErrTruncated},           // 6
	}}
	tests := []struct{ turn, start, end int }{{0, 0, 1}, {1, 2, 2}, {2, 3, 5}, {3, 6, 7}}
	for _, tt := range tests {
		start, end, ok := r.slot(tt.turn)
		if !ok || start != tt.start || end != tt.end {
			t.Errorf("slot(%d) = %d, %d, %v; want %d, %d", tt.turn, start, end, ok, tt.start, tt.end)
		}
	}
	if _, _, ok := r.slot(4); ok {
		t.Error("slot(4) exists")
	}
}

func TestHumanText(t *testing.T) {
	in := "<system-reminder>\nctx\n</system-reminder>\n\nplease go\n<session_context>x</session_context>"
	if got := humanText(in); got != "please go" {
		t.Errorf("humanText = %q", got)
	}
}

func TestFindCwd(t *testing.T) {
	tests := map[string]string{
		"<environment_context>\n  <cwd>/w/codex</cwd>":                   "/w/codex",
		"Here is env:\nWorking directory: /w/claude\nIs git repo: no":    "/w/claude",
		"- **Workspace Directories:**\n  - /w/gemini\n- **Directory Str": "/w/gemini",
		"nothing here": "",
	}
	for text, want := range tests {
		if got := findCwd(text); got != want {
			t.Errorf("findCwd(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestChunks(t *testing.T) {
	text := "one two three four five six seven eight"
	parts := chunks(text, 3)
	if len(parts) != 3 || strings.Join(parts, "") != text {
		t.Errorf("chunks = %q", parts)
	}
	if got := chunks("hi", 3); len(got) != 1 || got[0] != "hi" {
		t.Errorf("chunks(hi) = %q", got)
	}
	if got := splitHalves("ééé"); strings.Join(got, "") != "ééé" || len(got) != 2 {
		t.Errorf("splitHalves split a rune: %q", got)
	}
}
