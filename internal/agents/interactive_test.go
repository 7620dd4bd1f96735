package agents

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestBuildInteractive pins the interactive argv of each tool.
func TestBuildInteractive(t *testing.T) {
	r := InteractiveRequest{Prompt: "do it", Model: "m1", Yolo: true, Root: true, NewSessionID: "uuid-1", Hook: "'/bin/csa' __hook --dir '/s'", Dir: "/s"}
	cases := map[Tool][]string{
		ClaudeCode: {"--dangerously-skip-permissions", "--model", "m1", "--session-id", "uuid-1", "--settings", "/s/claude-settings.json", "do it"},
		Codex: {"--dangerously-bypass-approvals-and-sandbox", "-m", "m1",
			"-c", `hooks.Stop=[{hooks=[{type="command",command="'/bin/csa' __hook --dir '/s' stop"}]}]`,
			"-c", `hooks.UserPromptSubmit=[{hooks=[{type="command",command="'/bin/csa' __hook --dir '/s' submit"}]}]`,
			"--dangerously-bypass-hook-trust", "--no-daemon", "do it"},
		GeminiCLI: {"--yolo", "-m", "m1", "-i", "do it"},
		Opencode:  {"-m", "m1", "--prompt", "do it"},
	}
	for tool, want := range cases {
		inv, err := BuildInteractive(tool, r)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(inv.Args, want) {
			t.Errorf("%s:\n got %q\nwant %q", tool, inv.Args, want)
		}
		if hooks := tool == ClaudeCode || tool == Codex; inv.Hooks != hooks {
			t.Errorf("%s: hooks %v", tool, inv.Hooks)
		}
	}
	inv, _ := BuildInteractive(ClaudeCode, r)
	if !reflect.DeepEqual(inv.Env, []string{"IS_SANDBOX=1"}) || inv.ProviderSessionID != "uuid-1" {
		t.Errorf("claude env %q, provider id %q", inv.Env, inv.ProviderSessionID)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(inv.Files["/s/claude-settings.json"], &settings); err != nil {
		t.Fatal(err)
	}
	if c := settings.Hooks["Stop"][0].Hooks[0]; c.Type != "command" || c.Command != r.Hook+" stop" {
		t.Errorf("Stop hook %+v", c)
	}
	if c := settings.Hooks["UserPromptSubmit"][0].Hooks[0]; c.Command != r.Hook+" submit" {
		t.Errorf("submit hook %+v", c)
	}
}

func TestBuildInteractiveEdges(t *testing.T) {
	// No prompt: none in argv. A prompt like an option goes after "--".
	inv, _ := BuildInteractive(ClaudeCode, InteractiveRequest{Dir: "/s"})
	if last := inv.Args[len(inv.Args)-1]; last != "/s/claude-settings.json" {
		t.Errorf("no prompt: argv ends with %q", last)
	}
	inv, _ = BuildInteractive(Codex, InteractiveRequest{Prompt: "-x"})
	if n := len(inv.Args); inv.Args[n-2] != "--" || inv.Args[n-1] != "-x" {
		t.Errorf("option-like prompt: %q", inv.Args)
	}
	if _, err := BuildInteractive(ClaudeCode, InteractiveRequest{Prompt: strings.Repeat("x", MaxInteractivePrompt+1)}); err == nil || !strings.Contains(err.Error(), "csa send --text-file") {
		t.Errorf("long prompt: %v", err)
	}
	if got := tomlString("a\"b\\c\n"); got != `"a\"b\\c\u000A"` {
		t.Errorf("tomlString = %s", got)
	}
}
