package agents

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tool := range All {
		got, err := Parse(string(tool))
		if err != nil || got != tool {
			t.Errorf("Parse(%q) = %q, %v", tool, got, err)
		}
	}
	for _, name := range []string{"", "claude", "Claude-Code", "CODEX", " codex", "codex ", "gemini", "open-code", "auto"} {
		got, err := Parse(name)
		var ute *UnknownToolError
		if !errors.As(err, &ute) || ute.Name != name || got != "" {
			t.Errorf("Parse(%q) = %q, %v; want *UnknownToolError", name, got, err)
			continue
		}
		if !strings.Contains(err.Error(), Names()) {
			t.Errorf("error %q does not list the known tools", err)
		}
	}
	if want := "claude-code, codex, gemini-cli, opencode, csa-agent"; Names() != want {
		t.Errorf("Names() = %q, want %q", Names(), want)
	}
}

func TestRegistry(t *testing.T) {
	programs := map[Tool]string{ClaudeCode: "claude", Codex: "codex", GeminiCLI: "gemini", Opencode: "opencode", CSAAgent: "csa-agent"}
	families := map[Tool]string{ClaudeCode: FamilyAnthropic, Codex: FamilyOpenAI, GeminiCLI: FamilyGoogle, Opencode: "", CSAAgent: ""}
	// csa-agent's ACP agent is itself, with --acp.
	acp := map[Tool]string{ClaudeCode: "claude-code-acp", Codex: "codex-acp", CSAAgent: "csa-agent"}
	for _, tool := range All {
		s, ok := Lookup(string(tool))
		if !ok || s.Tool != tool {
			t.Fatalf("Lookup(%q) = %v, %v", tool, s, ok)
		}
		if s.Program.Name != programs[tool] || s.Program.BuiltWithCSA() != (tool == CSAAgent) {
			t.Errorf("%s: program %+v, want %q (an npm package but csa-agent's)", tool, s.Program, programs[tool])
		}
		if s.Family != families[tool] {
			t.Errorf("%s: family %q, want %q", tool, s.Family, families[tool])
		}
		if got := ""; s.ACP != nil {
			got = s.ACP.Name
			if got != acp[tool] {
				t.Errorf("%s: ACP program %q, want %q", tool, got, acp[tool])
			}
			if args := strings.Join(s.ACP.Args, " "); (tool == CSAAgent) != (args == "--acp") || (tool != CSAAgent && args != "") {
				t.Errorf("%s: ACP program's arguments %q", tool, args)
			}
		} else if acp[tool] != "" {
			t.Errorf("%s: no ACP program, want %q", tool, acp[tool])
		}
		if s.Adapter == nil || For(tool).NewParser() == nil || s.Interactive == nil || s.InitialEstimateMB <= 0 {
			t.Errorf("%s: incomplete spec %+v", tool, s)
		}
	}
	// Five tools' programs and two ACP agents: csa-agent --acp is not
	// another program.
	if len(Programs()) != 7 {
		t.Errorf("Programs() = %v", Programs())
	}
	if FamilyOf(Opencode, "openai/gpt-5") != FamilyOpenAI || FamilyOf(Codex, "claude-x") != FamilyOpenAI || FamilyOf(Opencode, "") != "" ||
		FamilyOf(CSAAgent, "anthropic/claude-sonnet-4-5") != FamilyAnthropic || FamilyOf(CSAAgent, "gemini/gemini-2.5-pro") != FamilyGoogle || FamilyOf(CSAAgent, "") != "" {
		t.Error("FamilyOf")
	}
	defer func() {
		if recover() == nil {
			t.Error("For of an unknown tool did not panic")
		}
	}()
	For("nope")
}

func TestBuild(t *testing.T) {
	const prompt = "fix the tests"
	tests := []struct {
		tool  Tool
		req   Request
		args  []string
		env   []string
		psess string
	}{
		{ClaudeCode, Request{Prompt: prompt},
			[]string{"-p", "--output-format", "stream-json", "--verbose", prompt}, nil, ""},
		{ClaudeCode, Request{Prompt: prompt, Model: "opus"},
			[]string{"-p", "--output-format", "stream-json", "--verbose", "--model", "opus", prompt}, nil, ""},
		{ClaudeCode, Request{Prompt: prompt, Model: "opus", Effort: "high", Yolo: true, Root: true, NewSessionID: "u-1"},
			[]string{"-p", "--output-format", "stream-json", "--verbose", "--model", "opus", "--effort", "high",
				"--dangerously-skip-permissions", "--session-id", "u-1", prompt}, []string{"IS_SANDBOX=1"}, "u-1"},
		{ClaudeCode, Request{Prompt: prompt, Yolo: true, ResumeID: "r-1", NewSessionID: "u-1"},
			[]string{"-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions", "--resume", "r-1", prompt}, nil, "r-1"},
		{Codex, Request{Prompt: prompt},
			[]string{"exec", "--json", "--skip-git-repo-check", prompt}, nil, ""},
		{Codex, Request{Prompt: prompt, Model: "gpt-5"},
			[]string{"exec", "--json", "--skip-git-repo-check", "-m", "gpt-5", prompt}, nil, ""},
		{Codex, Request{Prompt: prompt, Model: "gpt-5", Effort: "low", Yolo: true, ResumeID: "th-1"},
			[]string{"exec", "resume", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
				"-m", "gpt-5", "-c", `model_reasoning_effort="low"`, "th-1", prompt}, nil, "th-1"},
		{GeminiCLI, Request{Prompt: prompt},
			[]string{"--output-format", "stream-json", "-p", prompt}, nil, ""},
		{GeminiCLI, Request{Prompt: prompt, Model: "gemini-2.5-pro"},
			[]string{"--output-format", "stream-json", "-m", "gemini-2.5-pro", "-p", prompt}, nil, ""},
		{GeminiCLI, Request{Prompt: prompt, Yolo: true, ResumeID: "g-1"},
			[]string{"--output-format", "stream-json", "--yolo", "--skip-trust", "--resume", "g-1", "-p", prompt}, nil, "g-1"},
		{Opencode, Request{Prompt: prompt},
			[]string{"run", "--format", "json", "--print-logs", "--log-level", "ERROR", prompt}, nil, ""},
		{Opencode, Request{Prompt: prompt, Model: "anthropic/claude-sonnet-4"},
			[]string{"run", "--format", "json", "--print-logs", "--log-level", "ERROR", "-m", "anthropic/claude-sonnet-4", prompt}, nil, ""},
		{Opencode, Request{Prompt: prompt, Effort: "high", Yolo: true, ResumeID: "ses_1"},
			[]string{"run", "--format", "json", "--print-logs", "--log-level", "ERROR", "--variant", "high", "--auto", "-s", "ses_1", prompt}, nil, "ses_1"},
	}
	for _, tt := range tests {
		t.Run(string(tt.tool)+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			inv, err := For(tt.tool).Build(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(inv.Args, tt.args) {
				t.Errorf("Args = %q\n want %q", inv.Args, tt.args)
			}
			if inv.Args[len(inv.Args)-1] != prompt {
				t.Errorf("prompt is not last in argv: %q", inv.Args)
			}
			if !reflect.DeepEqual(inv.Env, tt.env) {
				t.Errorf("Env = %q, want %q", inv.Env, tt.env)
			}
			if inv.Stdin != nil {
				t.Errorf("Stdin = %q for a short prompt, want nil", inv.Stdin)
			}
			if inv.ProviderSessionID != tt.psess {
				t.Errorf("ProviderSessionID = %q, want %q", inv.ProviderSessionID, tt.psess)
			}
		})
	}
}

func TestBuildLongPrompt(t *testing.T) {
	atLimit := strings.Repeat("a", MaxArgvPrompt)
	long := strings.Repeat("b", MaxArgvPrompt+1)
	// With the prompt on stdin, argv is the short-prompt argv with the
	// prompt replaced by the tool's read-stdin form.
	stdinArg := map[Tool][]string{Codex: {"-"}, GeminiCLI: {" "}}
	for _, tool := range All {
		for _, model := range []string{"", "some-model"} {
			name := string(tool) + "/model=" + model
			t.Run(name, func(t *testing.T) {
				inv, err := For(tool).Build(Request{Prompt: atLimit, Model: model})
				if err != nil {
					t.Fatal(err)
				}
				if inv.Args[len(inv.Args)-1] != atLimit || inv.Stdin != nil {
					t.Errorf("a prompt of exactly MaxArgvPrompt bytes is not last in argv")
				}
				short := inv.Args

				inv, err = For(tool).Build(Request{Prompt: long, Model: model})
				if err != nil {
					t.Fatal(err)
				}
				if string(inv.Stdin) != long {
					t.Fatalf("Stdin holds %d bytes, want the %d-byte prompt", len(inv.Stdin), len(long))
				}
				for i, a := range inv.Args {
					if strings.Contains(a, "bbbbbbbb") {
						t.Fatalf("argv[%d] holds the long prompt", i)
					}
				}
				if model != "" && !containsPair(inv.Args, model) {
					t.Errorf("model %q missing from %q", model, inv.Args)
				}
				want := append(append([]string(nil), short[:len(short)-1]...), stdinArg[tool]...)
				if !reflect.DeepEqual(inv.Args, want) {
					t.Errorf("Args = %q, want %q", inv.Args, want)
				}
			})
		}
	}
}

func containsPair(args []string, value string) bool {
	for i := 1; i < len(args); i++ {
		if args[i] == value && strings.HasPrefix(args[i-1], "-") {
			return true
		}
	}
	return false
}

func TestFamilyOfModel(t *testing.T) {
	tests := []struct{ model, want string }{
		{"", ""},
		{"claude-sonnet-4-5", FamilyAnthropic},
		{"anthropic/foo", FamilyAnthropic},
		{"Claude-Opus", FamilyAnthropic},
		{"gpt-5", FamilyOpenAI},
		{"openai/gpt-4.1", FamilyOpenAI},
		{"gpt-5-codex", FamilyOpenAI},
		{"o3", FamilyOpenAI},
		{"o4-mini", FamilyOpenAI},
		{"gemini-2.5-pro", FamilyGoogle},
		{"google/gemma-3", FamilyGoogle},
		// csa-agent's provider/model.
		{"anthropic/x", FamilyAnthropic},
		{"openai/x", FamilyOpenAI},
		{"gemini/x", FamilyGoogle},
		{"llama-3-70b", ""},
		{"mistral/large", ""},
	}
	for _, tt := range tests {
		if got := FamilyOfModel(tt.model); got != tt.want {
			t.Errorf("FamilyOfModel(%q) = %q, want %q", tt.model, got, tt.want)
		}
	}
}
