package agents

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/session"
)

func TestCSAAgentBuild(t *testing.T) {
	const prompt = "fix the tests"
	head := []string{"-p", "--output-format", "stream-json", "--verbose"}
	tests := []struct {
		name  string
		req   Request
		args  []string
		psess string
	}{
		{"headless", Request{Prompt: prompt}, []string{prompt}, ""},
		{"model and effort", Request{Prompt: prompt, Model: "anthropic/claude-sonnet-4-5", Effort: "high"},
			[]string{"--model", "anthropic/claude-sonnet-4-5", "--effort", "high", prompt}, ""},
		// As root too, it needs no IS_SANDBOX (Claude Code's quirk).
		{"yolo, a new session", Request{Prompt: prompt, Yolo: true, Root: true, NewSessionID: "u-1"},
			[]string{"--dangerously-skip-permissions", "--session-id", "u-1", prompt}, "u-1"},
		{"resume wins over a new id", Request{Prompt: prompt, Model: "openai/gpt-5", ResumeID: "r-1", NewSessionID: "u-1"},
			[]string{"--model", "openai/gpt-5", "--resume", "r-1", prompt}, "r-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv, err := For(CSAAgent).Build(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if want := append(append([]string(nil), head...), tt.args...); !reflect.DeepEqual(inv.Args, want) {
				t.Errorf("Args = %q\n want %q", inv.Args, want)
			}
			if inv.Env != nil || inv.Stdin != nil || inv.ProviderSessionID != tt.psess {
				t.Errorf("Env %q, Stdin %q, ProviderSessionID %q (want %q)", inv.Env, inv.Stdin, inv.ProviderSessionID, tt.psess)
			}
		})
	}
	// A prompt like an option goes on stdin, which -p reads without one
	// in argv.
	inv, _ := For(CSAAgent).Build(Request{Prompt: "-x"})
	if !reflect.DeepEqual(inv.Args, head) || string(inv.Stdin) != "-x" {
		t.Errorf("option-like prompt: args %q, stdin %q", inv.Args, inv.Stdin)
	}
}

func TestCSAAgentInteractive(t *testing.T) {
	r := InteractiveRequest{Prompt: "do it", Model: "anthropic/m1", Effort: "low", Yolo: true, Root: true, NewSessionID: "uuid-1", Hook: "'/bin/csa' __hook --dir '/s'", Dir: "/s"}
	inv, err := BuildInteractive(CSAAgent, r)
	if err != nil {
		t.Fatal(err)
	}
	const settings = "/s/csa-agent-settings.json"
	want := []string{"--dangerously-skip-permissions", "--model", "anthropic/m1", "--effort", "low", "--session-id", "uuid-1", "--settings", settings, "do it"}
	if !reflect.DeepEqual(inv.Args, want) {
		t.Errorf("Args = %q\n want %q", inv.Args, want)
	}
	if !inv.Hooks || !inv.ReadyHook || inv.ReadyMS <= 0 || inv.Env != nil || inv.ProviderSessionID != "uuid-1" {
		t.Errorf("invocation %+v", inv)
	}
	if len(inv.Files) != 1 {
		t.Errorf("files %v, want only %s", inv.Files, settings)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(inv.Files[settings], &s); err != nil {
		t.Fatal(err)
	}
	events := map[string]string{"SessionStart": "ready", "UserPromptSubmit": "submit", "Stop": "stop"}
	if len(s.Hooks) != len(events) {
		t.Errorf("hooks %v, want %v", s.Hooks, events)
	}
	for hook, ev := range events {
		if h := s.Hooks[hook]; len(h) != 1 || len(h[0].Hooks) != 1 || h[0].Hooks[0].Type != "command" || h[0].Hooks[0].Command != r.Hook+" "+ev {
			t.Errorf("%s hook %+v, want the command %q", hook, h, r.Hook+" "+ev)
		}
	}

	// No prompt: the REPL waits for one; a prompt like an option follows "--".
	inv, _ = BuildInteractive(CSAAgent, InteractiveRequest{Dir: "/s"})
	if !reflect.DeepEqual(inv.Args, []string{"--settings", settings}) {
		t.Errorf("no prompt: %q", inv.Args)
	}
	inv, _ = BuildInteractive(CSAAgent, InteractiveRequest{Dir: "/s", Prompt: "-x"})
	if n := len(inv.Args); inv.Args[n-2] != "--" || inv.Args[n-1] != "-x" {
		t.Errorf("option-like prompt: %q", inv.Args)
	}
}

// TestCSAAgentStream reads csa-agent's stream-json, recorded against the
// model server (`csa-agent -p --output-format stream-json --verbose`: a
// file written with its Write tool; a 429 retried 4 times, then given up),
// with the parser every Claude Code stream goes through.
func TestCSAAgentStream(t *testing.T) {
	if _, ok := For(CSAAgent).NewParser().(*claudeParser); !ok {
		t.Fatal("csa-agent's parser is not Claude Code's")
	}
	tests := []struct {
		file    string
		exit    int
		types   []string
		result  string
		session string
		usage   *session.Usage
		class   string
	}{
		{"write_file.jsonl", 0,
			[]string{EvSession, EvText, EvToolCall, EvToolResult, EvText, EvUsage},
			"Done.", "7aeecff1-4a23-404d-8dda-4d2ee9964a4f", &session.Usage{InputTokens: 12192, OutputTokens: 5}, ""},
		{"rate_limit.jsonl", 1,
			[]string{EvSession, EvRetry, EvRetry, EvRetry, EvRetry, EvUsage, EvError},
			"", "ab871a50-e9b8-4a72-9a23-c99fd5cefde6", &session.Usage{}, session.FailRateLimited},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p := For(CSAAgent).NewParser()
			types, evs := feed(p, readLines(t, filepath.Join("testdata", "csa-agent", tt.file))...)
			if strings.Join(types, ",") != strings.Join(tt.types, ",") {
				t.Errorf("event types = %v\n want %v", types, tt.types)
			}
			for _, e := range evs {
				if r, ok := e.Data.(Retry); ok && (r.Attempt < 1 || r.Max != 4 || r.Status != 429 || r.DelayMS != 20 || !r.RateLimited) {
					t.Errorf("retry %+v", r)
				}
			}
			o := p.Finish(tt.exit, "")
			if o.Result != tt.result || o.ProviderSessionID != tt.session || !reflect.DeepEqual(o.Usage, tt.usage) || failureClass(o) != tt.class {
				t.Errorf("outcome %+v (usage %+v, failure %+v)", o, o.Usage, o.Failure)
			}
		})
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
