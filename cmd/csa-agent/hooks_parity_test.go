package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

// hooksScript drives both programs through the same tool calls: a file
// written, a command (printing a byte that is not UTF-8), the file read (whole and in part), edited, and a
// subagent (AGENT: the subagent tool's name in each program). Usage is
// fixed so both transcripts can add up to the same totals.
const hooksScript = `
[[rule]]
name = "main"
contains = "hooks parity"
  [[rule.step]]
  text = "writing"
  input_tokens = 100
  output_tokens = 10
  [[rule.step.calls]]
  name = "Write"
  args = { file_path = "FILE", content = "alpha\nbeta\ncaf\u00e9\n" }
  [[rule.step]]
  text = "more"
  input_tokens = 200
  output_tokens = 20
  [[rule.step.calls]]
  name = "Bash"
  args = { command = "echo out; echo err >&2; printf 'bad \\377 byte\\n'", description = "say" }
  [[rule.step.calls]]
  name = "Read"
  args = { file_path = "FILE" }
  [[rule.step.calls]]
  name = "Read"
  args = { file_path = "FILE", offset = 2, limit = 1 }
  [[rule.step]]
  input_tokens = 300
  output_tokens = 30
  [[rule.step.calls]]
  name = "Edit"
  args = { file_path = "FILE", old_string = "beta", new_string = "gamma" }
  [[rule.step]]
  input_tokens = 400
  output_tokens = 40
  [[rule.step.calls]]
  name = "AGENT"
  args = { description = "sub", prompt = "sub task", subagent_type = "general-purpose" }
  [[rule.step]]
  text = "noted"
  input_tokens = 500
  output_tokens = 50
[[rule]]
name = "sub"
contains = "sub task"
  [[rule.step]]
  text = "sub done"
  input_tokens = 70
  output_tokens = 7
`

// hooksSettings logs every event's input, and has hooks with conditions:
// one matching the Write, one matching nothing.
const hooksSettings = `{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "sh $CLAUDE_PROJECT_DIR/log.sh"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh $CLAUDE_PROJECT_DIR/log.sh"}]}],
  "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "sh $CLAUDE_PROJECT_DIR/log.sh"},
     {"type": "command", "command": "touch $CLAUDE_PROJECT_DIR/if-write", "if": "Write(*.txt)"},
     {"type": "command", "command": "touch $CLAUDE_PROJECT_DIR/if-commit", "if": "Bash(git commit:*)"}]}],
  "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "sh $CLAUDE_PROJECT_DIR/log.sh"}]}],
  "SubagentStart": [{"hooks": [{"type": "command", "command": "sh $CLAUDE_PROJECT_DIR/log.sh"}]}],
  "SubagentStop": [{"hooks": [{"type": "command", "command": "sh $CLAUDE_PROJECT_DIR/log.sh"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "sh $CLAUDE_PROJECT_DIR/log.sh"}]}]
}}`

// hooksLog appends a hook's input as one line; a lock keeps parallel
// hooks' lines whole.
const hooksLog = `in=$(cat)
flock "$CLAUDE_PROJECT_DIR/events.lock" sh -c 'printf "%s\n" "$1" >> "$CLAUDE_PROJECT_DIR/events.jsonl"' sh "$in"
`

// hookRun is what one program's hooks saw.
type hookRun struct {
	inputs []map[string]any // in the order the hooks logged them
	cwd    string
}

// runHooked runs one program on a fresh copy of the project: agentTool
// is its name for the subagent tool; command makes the program's command
// for the model server's url, in cwd with HOME home.
func runHooked(t *testing.T, agentTool string, command func(url, home, cwd string) *exec.Cmd) hookRun {
	t.Helper()
	dir := t.TempDir()
	home, cwd := filepath.Join(dir, "home"), filepath.Join(dir, "proj")
	for name, content := range map[string]string{
		filepath.Join(cwd, ".claude", "settings.json"): hooksSettings,
		filepath.Join(cwd, "log.sh"):                   hooksLog,
		filepath.Join(home, ".claude", ".keep"):        "",
	} {
		if err := writeFile(name, content); err != nil {
			t.Fatal(err)
		}
	}
	script := strings.NewReplacer("FILE", filepath.Join(cwd, "w.txt"), "AGENT", agentTool).Replace(hooksScript)
	sc, err := modelserver.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.New(sc, modelserver.Options{})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cmd := command(url, home, cwd)
	cmd.Dir = cwd
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "noted") {
		t.Fatalf("%s: %v\n%s", cmd.Path, err, out)
	}
	srv.Settle(time.Minute)
	return hookRun{inputs: readJSONLines(t, filepath.Join(cwd, "events.jsonl")), cwd: cwd}
}

func readJSONLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: a line that is not JSON: %v\n%s", path, err, sc.Bytes())
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// hookKeys are the input keys of each event by event and tool ("Event" or
// "Event Tool"; the subagent tool is called Agent), and the keys of
// tool_response by tool ("tool_response Tool").
func hookKeys(r hookRun) map[string][]string {
	out := map[string][]string{}
	add := func(k string, keys []string) {
		out[k] = slices.Compact(slices.Sorted(slices.Values(append(out[k], keys...))))
	}
	for _, in := range r.inputs {
		key := fmt.Sprint(in["hook_event_name"])
		tool, _ := in["tool_name"].(string)
		if tool == "Task" {
			tool = "Agent"
		}
		if tool != "" {
			key += " " + tool
		}
		add(key, mapKeys(in))
		if resp, ok := in["tool_response"].(map[string]any); ok {
			add("tool_response "+tool, mapKeys(resp))
		}
	}
	return out
}

func mapKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// hookKeysClaudeOnly are input keys Claude Code sends and csa-agent does
// not: effort (the model's effort level, {"level": ...}), and on Stop and
// SubagentStop Claude Code's lists of background tasks and crons.
var hookKeysClaudeOnly = []string{"effort", "background_tasks", "session_crons"}

// TestHooksParityWithClaudeCode runs the real Claude Code and csa-agent
// through the same tool calls with hooks logging their input: the same
// events fire, with the same keys, and tool_response has Claude Code's
// keys for each tool; the conditional hooks fire for the same calls;
// both transcripts read the same to a usage reader.
func TestHooksParityWithClaudeCode(t *testing.T) {
	claude := realClaude(t)
	prompt := "hooks parity"
	allowed := []string{"--allowedTools", "Bash(echo:*),Bash(printf:*),Write,Edit,Read"}
	cc := runHooked(t, "Agent", func(url, home, cwd string) *exec.Cmd {
		cmd := claudeCommand(t, claude, home, cwd, url, prompt)
		cmd.Args = append(slices.DeleteFunc(cmd.Args, func(a string) bool { return a == "--max-turns" || a == "1" }), allowed...)
		return cmd
	})
	ca := runHooked(t, "Task", func(url, home, cwd string) *exec.Cmd {
		cmd := agentCommand(t, filepath.Dir(home), home, cwd, url, prompt)
		cmd.Args = append(cmd.Args, allowed...)
		return cmd
	})

	ccKeys, caKeys := hookKeys(cc), hookKeys(ca)
	for k, keys := range ccKeys {
		ccKeys[k] = slices.DeleteFunc(keys, func(s string) bool { return slices.Contains(hookKeysClaudeOnly, s) })
	}
	var diffs []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		seen := map[string]bool{}
		for k := range ccKeys {
			seen[k] = true
		}
		for k := range caKeys {
			seen[k] = true
		}
		for k := range seen {
			if !yield(k) {
				return
			}
		}
	}) {
		if !slices.Equal(ccKeys[k], caKeys[k]) {
			diffs = append(diffs, fmt.Sprintf("%s:\n  claude    %q\n  csa-agent %q", k, ccKeys[k], caKeys[k]))
		}
	}
	if len(diffs) > 0 {
		t.Errorf("hook inputs differ:\n%s", strings.Join(diffs, "\n"))
	}
	for _, want := range []string{"tool_response Bash", "tool_response Write", "tool_response Read", "tool_response Edit", "SubagentStop"} {
		if len(caKeys[want]) == 0 {
			t.Errorf("csa-agent: no %s", want)
		}
	}
	for _, r := range []hookRun{cc, ca} {
		if _, err := os.Stat(filepath.Join(r.cwd, "if-write")); err != nil {
			t.Errorf("%s: the Write(*.txt) hook did not run", r.cwd)
		}
		if _, err := os.Stat(filepath.Join(r.cwd, "if-commit")); err == nil {
			t.Errorf("%s: the Bash(git commit:*) hook ran", r.cwd)
		}
	}

	// The file and shell tools' responses are equal, not only alike.
	ccResp, caResp := toolResponses(cc), toolResponses(ca)
	for _, tool := range []string{"Bash", "Write", "Read", "Edit"} {
		if !slices.Equal(ccResp[tool], caResp[tool]) {
			t.Errorf("tool_response of %s:\n  claude    %s\n  csa-agent %s", tool, ccResp[tool], caResp[tool])
		}
	}

	ccReading, caReading := readTranscripts(t, cc), readTranscripts(t, ca)
	if ccReading != caReading {
		t.Errorf("the transcripts read differently:\n  claude    %s\n  csa-agent %s", ccReading, caReading)
	}
}

// toolResponses are the PostToolUse tool_response objects by tool, as
// JSON with the project's directory written CWD, in a stable order.
func toolResponses(r hookRun) map[string][]string {
	out := map[string][]string{}
	for _, in := range r.inputs {
		if in["hook_event_name"] != "PostToolUse" {
			continue
		}
		b, _ := json.Marshal(in["tool_response"])
		tool := fmt.Sprint(in["tool_name"])
		out[tool] = append(out[tool], strings.ReplaceAll(string(b), r.cwd, "CWD"))
	}
	for _, l := range out {
		sort.Strings(l) // parallel calls end in any order
	}
	return out
}

// readTranscripts reads the transcripts the hooks were given as a usage
// tool does: each response counted once (by message id) for its tokens,
// the tools called in order, the prompts; the same for the subagent's
// transcript (agent_transcript_path). The result is a summary to compare.
func readTranscripts(t *testing.T, r hookRun) string {
	t.Helper()
	var main, sub string
	for _, in := range r.inputs {
		switch in["hook_event_name"] {
		case "Stop":
			main, _ = in["transcript_path"].(string)
		case "SubagentStop":
			sub, _ = in["agent_transcript_path"].(string)
		}
	}
	if main == "" || sub == "" {
		t.Fatalf("%s: no transcript_path on Stop (%q) or agent_transcript_path on SubagentStop (%q)", r.cwd, main, sub)
	}
	return "main: " + readTranscript(t, main) + "; subagent: " + readTranscript(t, sub)
}

func readTranscript(t *testing.T, path string) string {
	t.Helper()
	var in, out int64
	seen := map[string]bool{}
	var tools, prompts []string
	results := 0
	for _, l := range readJSONLines(t, path) {
		msg, _ := l["message"].(map[string]any)
		if l["type"] != "user" && l["type"] != "assistant" {
			continue // Claude Code's own bookkeeping
		}
		if l["uuid"] == nil || l["sessionId"] == nil || l["timestamp"] == nil || l["cwd"] == nil {
			t.Errorf("%s: a line without uuid, sessionId, timestamp or cwd: %v", path, l)
		}
		switch l["type"] {
		case "assistant":
			id, _ := msg["id"].(string)
			if u, ok := msg["usage"].(map[string]any); ok && !seen[id] {
				seen[id] = true
				in += int64(u["input_tokens"].(float64))
				out += int64(u["output_tokens"].(float64))
			}
			content, _ := msg["content"].([]any)
			for _, b := range content {
				if b, _ := b.(map[string]any); b["type"] == "tool_use" {
					name := fmt.Sprint(b["name"])
					if name == "Task" {
						name = "Agent"
					}
					tools = append(tools, name)
				}
			}
		case "user":
			switch c := msg["content"].(type) {
			case string:
				prompts = append(prompts, c)
			case []any:
				for _, b := range c {
					if b, _ := b.(map[string]any); b["type"] == "tool_result" {
						results++
						if l["toolUseResult"] == nil {
							t.Errorf("%s: a tool result without toolUseResult: %v", path, l)
						}
					}
				}
			}
		}
	}
	return fmt.Sprintf("%d responses, %d input and %d output tokens, tools %q, %d results, prompts %q", len(seen), in, out, tools, results, prompts)
}
