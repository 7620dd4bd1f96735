package devenv_test

// End-to-end tests: each real agent program, installed by
// csa tools install, runs against the scripted model server in its
// own HOME prepared by devenv.Prepare.
//
// What the programs print for a 429 (recorded in testdata/ratelimit/, set
// CSA_E2E_RECORD=1 to refresh), with Options.Retries = 0:
//   - claude: exit 1; an "assistant" line with "error":"rate_limit" and the text
//     "API Error: Request rejected (429) · <message>", then a "result" line with
//     "is_error":true and "api_error_status":429.
//   - codex: exit 1; {"type":"error","message":"exceeded retry limit, last status:
//     429 Too Many Requests"} then {"type":"turn.failed",...} (the body's message
//     is not shown).
//   - gemini: exit non-zero (173 seen); a "result" line with "status":"error" and
//     "[API Error: <message>\nSuggested retry after 1s.]", and on stderr
//     "RetryableQuotaError" with status 429.
//   - opencode: exit 1; {"type":"error","error":{"name":"APIError","data":{
//     "message":"<message>","statusCode":429,"isRetryable":true,...}}}, after
//     1 + 5 attempts that it cannot be told to skip.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/testkit/devenv"
	"github.com/csa-dev/csa/internal/testkit/modelserver"
	"github.com/csa-dev/csa/internal/toolcache"
)

const e2eScript = `
[[rule]]
name = "hello"
contains = "e2e say hello"
  [[rule.step]]
  text = "Hello from the scripted model server, over several deltas."

[[rule]]
name = "write"
contains = "e2e write a file"
  [[rule.step]]
  write_file = { path = "written.txt", content = "written by the agent\n" }
  [[rule.step]]
  text = "Wrote written.txt."

[[rule]]
name = "shell"
contains = "e2e run a command"
  [[rule.step]]
  shell = "echo hi > f"
  [[rule.step]]
  text = "Ran the command."

[[rule]]
name = "ratelimit"
contains = "e2e rate limit"
  [[rule.step]]
  error = "rate_limit"
  message = "Scripted rate limit for e2e."
  retry_after_ms = 50
`

// summary is what a test needs from a program's JSON lines.
type summary struct {
	SessionID string
	Text      string
	InTokens  int
}

type program struct {
	name  string
	args  func(prompt string) []string
	parse func(t *testing.T, line map[string]any, s *summary)
	tools []string // its write and shell tool names
	// attempts429 is how many requests it makes on a 429 with Retries 0.
	attempts429 int
}

var programs = []program{
	{
		name: "claude",
		args: func(p string) []string {
			return []string{"-p", p, "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"}
		},
		parse: func(t *testing.T, l map[string]any, s *summary) {
			if l["type"] == "result" {
				s.SessionID, _ = l["session_id"].(string)
				s.Text, _ = l["result"].(string)
				s.InTokens = num(l, "usage", "input_tokens")
			}
		},
		tools:       []string{"tool:Write", "tool:Bash"},
		attempts429: 1,
	},
	{
		name: "codex",
		args: func(p string) []string {
			return []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", p}
		},
		parse: func(t *testing.T, l map[string]any, s *summary) {
			switch l["type"] {
			case "thread.started":
				s.SessionID, _ = l["thread_id"].(string)
			case "item.completed":
				if item, _ := l["item"].(map[string]any); item["type"] == "agent_message" {
					text, _ := item["text"].(string)
					s.Text += text
				}
			case "turn.completed":
				s.InTokens = num(l, "usage", "input_tokens")
			}
		},
		// Codex has no write tool but apply_patch: the server writes
		// through the shell.
		tools:       []string{"tool:exec_command", "tool:exec_command"},
		attempts429: 1,
	},
	{
		name: "gemini",
		args: func(p string) []string { return []string{"-p", p, "--output-format", "stream-json", "--yolo"} },
		parse: func(t *testing.T, l map[string]any, s *summary) {
			switch l["type"] {
			case "init":
				s.SessionID, _ = l["session_id"].(string)
			case "message":
				if l["role"] == "assistant" {
					text, _ := l["content"].(string)
					s.Text += text
				}
			case "result":
				s.InTokens = num(l, "stats", "input_tokens")
			}
		},
		tools:       []string{"tool:write_file", "tool:run_shell_command"},
		attempts429: 1,
	},
	{
		name: "opencode",
		args: func(p string) []string { return []string{"run", "--format", "json", p} },
		parse: func(t *testing.T, l map[string]any, s *summary) {
			s.SessionID, _ = l["sessionID"].(string)
			part, _ := l["part"].(map[string]any)
			switch l["type"] {
			case "text":
				text, _ := part["text"].(string)
				s.Text += text
			case "step_finish":
				s.InTokens += num(part, "tokens", "input")
			}
		},
		tools: []string{"tool:write", "tool:bash"},
		// OpenCode always retries 5 times, waiting for retry-after-ms.
		attempts429: 6,
	},
}

func TestRealPrograms(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			bin := agentBin(t, p.name)
			r := newRig(t, p)
			t.Run("text", func(t *testing.T) {
				res := r.run(t, bin, "e2e say hello")
				if res.err != nil {
					t.Fatalf("%s failed: %v\n%s", p.name, res.err, res.out)
				}
				s := res.summary
				if !strings.Contains(s.Text, "Hello from the scripted model server") {
					t.Errorf("answer text %q lacks the scripted text", s.Text)
				}
				if s.SessionID == "" || s.InTokens <= 0 {
					t.Errorf("want a session id and input tokens, got %+v\n%s", s, res.out)
				}
			})
			t.Run("write_file", func(t *testing.T) {
				res := r.run(t, bin, "e2e write a file")
				if res.err != nil {
					t.Fatalf("%s failed: %v\n%s", p.name, res.err, res.out)
				}
				got, err := os.ReadFile(filepath.Join(r.work, "written.txt"))
				if err != nil || string(got) != "written by the agent\n" {
					t.Fatalf("written.txt = %q, %v\n%s", got, err, res.out)
				}
				r.wantAnswer(t, "write", p.tools[0])
			})
			t.Run("shell", func(t *testing.T) {
				res := r.run(t, bin, "e2e run a command")
				if res.err != nil {
					t.Fatalf("%s failed: %v\n%s", p.name, res.err, res.out)
				}
				got, err := os.ReadFile(filepath.Join(r.work, "f"))
				if err != nil || strings.TrimSpace(string(got)) != "hi" {
					t.Fatalf("f = %q, %v\n%s", got, err, res.out)
				}
				r.wantAnswer(t, "shell", p.tools[1])
			})
			t.Run("rate_limit", func(t *testing.T) {
				res := r.run(t, bin, "e2e rate limit")
				if res.err == nil {
					t.Fatalf("%s succeeded on a 429:\n%s", p.name, res.out)
				}
				if !bytes.Contains(res.out, []byte("429")) {
					t.Errorf("output does not mention 429:\n%s", res.out)
				}
				attempts := 0
				for _, rec := range r.srv.Requests()[r.before:] {
					if rec.Status == 429 {
						attempts++
					}
				}
				if attempts != p.attempts429 {
					t.Errorf("%s made %d requests on a 429, want %d", p.name, attempts, p.attempts429)
				}
				record(t, p.name, res)
			})
		})
	}
}

type rig struct {
	prog   program
	srv    *modelserver.Server
	env    []string
	work   string
	before int // requests seen before the current run
}

func newRig(t *testing.T, p program) *rig {
	script, err := modelserver.Parse([]byte(e2eScript))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	srv := modelserver.New(script, modelserver.Options{LogPath: filepath.Join(dir, "requests.jsonl")})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	env, err := devenv.Prepare(home, url, devenv.Options{Programs: []string{p.name}})
	if err != nil {
		t.Fatal(err)
	}
	return &rig{prog: p, srv: srv, env: devenv.Merge(os.Environ(), env), work: work}
}

type result struct {
	out     []byte // stdout then stderr
	err     error
	summary summary
	took    time.Duration
}

func (r *rig) run(t *testing.T, bin, prompt string) result {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r.before = len(r.srv.Requests())
	cmd := exec.CommandContext(ctx, bin, r.prog.args(prompt)...)
	cmd.Dir, cmd.Env = r.work, append(r.env, "PWD="+r.work)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := result{err: err, took: time.Since(start)}
	res.out = append(stdout.Bytes(), stderr.Bytes()...)
	sc := bufio.NewScanner(bytes.NewReader(stdout.Bytes()))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil {
			r.prog.parse(t, line, &res.summary)
		}
	}
	t.Logf("%s %q took %v (exit %v)", r.prog.name, prompt, res.took.Round(time.Millisecond), err)
	for _, rec := range r.srv.Requests()[r.before:] {
		if !rec.Matched || rec.Problem != "" {
			t.Errorf("request not answered as scripted: %+v", rec)
		}
	}
	return res
}

// wantAnswer checks that the rule answered with the program's own tool.
func (r *rig) wantAnswer(t *testing.T, rule, answer string) {
	t.Helper()
	for _, rec := range r.srv.Requests()[r.before:] {
		if rec.Rule == rule && rec.Answer == answer {
			return
		}
	}
	t.Errorf("no request of rule %q was answered with %s: %+v", rule, answer, r.srv.Requests()[r.before:])
}

// record keeps what a program prints for a 429, for the adapters that
// classify it.
func record(t *testing.T, name string, res result) {
	if os.Getenv("CSA_E2E_RECORD") == "" {
		return
	}
	path := filepath.Join("testdata", "ratelimit", name+".txt")
	head := "# " + name + " on a 429, exit: " + res.err.Error() + "\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append([]byte(head), res.out...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// agentBin finds an installed program; missing ones fail under CI.
func agentBin(t *testing.T, name string) string {
	bin, err := toolcache.Bin(name)
	if err != nil {
		if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
			t.Fatalf("%v (CI is set)", err)
		}
		t.Skipf("%v", err)
	}
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	return bin
}

// num reads a number at a path of keys.
func num(m map[string]any, keys ...string) int {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return 0
		}
		v = mm[k]
	}
	f, _ := v.(float64)
	return int(f)
}
