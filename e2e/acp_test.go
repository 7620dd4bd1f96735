package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// acpScript answers the ACP cases; %s is a path outside the project.
const acpScript = `
[[rule]]
name = "plain"
contains = "e2e acp plain prompt"
  [[rule.step]]
  text = "Hello over ACP."

[[rule]]
name = "write"
contains = "e2e acp write the file"
  [[rule.step]]
  write_file = { path = "acp-written.txt", content = "written over ACP\n" }
  [[rule.step]]
  text = "Wrote the file."

[[rule]]
name = "escape"
contains = "e2e acp write outside"
  [[rule.step]]
  write_file = { path = "%s", content = "must not exist\n" }
  [[rule.step]]
  text = "Tried to write outside."

[[rule]]
name = "denied"
contains = "e2e acp write without yolo"
  [[rule.step]]
  write_file = { path = "acp-denied.txt", content = "must not exist\n" }
  [[rule.step]]
  text = "The write was not allowed."

[[rule]]
name = "remember"
contains = "e2e acp remember the word"
  [[rule.step]]
  text = "Noted: the word is mango."

[[rule]]
name = "recall"
contains = "e2e acp what was the word"
body = "Noted: the word is mango."
  [[rule.step]]
  text = "The word was mango."

[[rule]]
name = "slow"
contains = "e2e acp slow turn"
  [[rule.step]]
  delay_ms = 120000
  text = "Too late."
`

// acpWorld is a world whose project runs claude-code and codex over ACP.
func acpWorld(t *testing.T) (*world, string) {
	t.Helper()
	requireAll(t)
	agents := requireACP(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	w := newWorld(t, fmt.Sprintf(acpScript, outside))
	useACP(t, w, agents)
	return w, outside
}

// requireACP finds every ACP agent or fails (CI) / skips (locally), by
// the csa tool each is for: the pinned ones in csa's cache, csa-agent
// (its ACP agent is `csa-agent --acp`) beside the csa built here.
func requireACP(t *testing.T) map[string]string {
	t.Helper()
	agents := map[string]string{}
	for _, tl := range acpTools {
		p, err := programBin(tl)
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed (run `make agents`): %v", tl.program, err)
			}
			t.Skipf("%s is not installed; run `make agents`: %v", tl.program, err)
		}
		agents[tl.name] = p
	}
	return agents
}

// useACP makes w's project run its tools over ACP, with agents.
func useACP(t *testing.T, w *world, agents map[string]string) {
	t.Helper()
	var cfg strings.Builder
	for _, tl := range acpTools {
		fmt.Fprintf(&cfg, "[tools.%s]\ntransport = \"acp\"\nacp_path = %q\n", tl.name, agents[tl.name])
	}
	if err := os.WriteFile(filepath.Join(w.proj, ".csa", "config.toml"), []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRealACPAgents runs claude-code-acp and codex-acp under csa: a plain
// prompt, a file written, a write outside the project refused, a resumed
// session, and a cancel (Ctrl-C, csa kill) mid-turn that leaves no
// process behind.
func TestRealACPAgents(t *testing.T) {
	for _, tl := range acpTools {
		t.Run(tl.name, func(t *testing.T) {
			t.Parallel()
			world, outside := acpWorld(t)

			t.Run("plain", func(t *testing.T) {
				w := world.in(t)
				r := w.run(0, "run", "--json", "--tool", tl.name, "e2e acp plain prompt")
				if r.Status != "completed" || r.Result != "Hello over ACP." || r.ProviderSessionID == "" {
					t.Fatalf("got %+v", r)
				}
				evs := w.events(r.SessionID)
				if !hasEvent(evs, "process.started", "transport", "acp") || hasEvent(evs, "warning", "", "") {
					t.Fatalf("not run over ACP, or with a warning:\n%s", dump(evs))
				}
				if !hasEvent(evs, "text", "", "") || !hasEvent(evs, "provider_session", "id", r.ProviderSessionID) {
					t.Fatalf("events lack text or the provider session:\n%s", dump(evs))
				}
			})

			t.Run("write_file", func(t *testing.T) {
				w := world.in(t)
				r := w.run(0, "run", "--json", "--tool", tl.name, "e2e acp write the file")
				b, err := os.ReadFile(filepath.Join(w.proj, "acp-written.txt"))
				if err != nil || string(b) != "written over ACP\n" || r.Result != "Wrote the file." {
					t.Fatalf("file not written (%v, %q); run: %+v\n%s", err, b, r, dump(w.events(r.SessionID)))
				}
				if tl.name == "claude-code" && !hasEvent(w.events(r.SessionID), "fs", "op", "write") {
					t.Fatalf("claude-code-acp did not write through fs/write_text_file:\n%s", dump(w.events(r.SessionID)))
				}
			})

			if tl.name == "claude-code" {
				// codex-acp writes with its own shell, not through the client.
				t.Run("write_outside_refused", func(t *testing.T) {
					w := world.in(t)
					r := w.run(0, "run", "--json", "--tool", tl.name, "e2e acp write outside")
					if _, err := os.Stat(outside); !os.IsNotExist(err) {
						t.Fatalf("a file was written outside the project: %v", err)
					}
					if !hasEvent(w.events(r.SessionID), "fs", "refused", true) {
						t.Fatalf("no refusal recorded:\n%s", dump(w.events(r.SessionID)))
					}
				})
			}

			if tl.name == "claude-code" {
				// Without yolo a headless run denies the agent's permission
				// requests, and records why.
				t.Run("permission_denied", func(t *testing.T) {
					w := world.in(t)
					// Claude Code ends its turn when a tool is refused.
					r := w.run(1, "run", "--json", "--yolo=false", "--tool", tl.name, "e2e acp write without yolo")
					if r.Failure == nil || !strings.Contains(r.Failure.Message, "denied 1 permission request") {
						t.Fatalf("the denial is not the reason given: %+v", r.Failure)
					}
					if _, err := os.Stat(filepath.Join(w.proj, "acp-denied.txt")); !os.IsNotExist(err) {
						t.Fatalf("written despite the denial: %v", err)
					}
					if evs := w.events(r.SessionID); !hasEvent(evs, "permission", "allowed", false) {
						t.Fatalf("no denied permission recorded:\n%s", dump(evs))
					}
				})
			}

			t.Run("fallback", func(t *testing.T) {
				w := world.in(t)
				// An ACP agent that dies during set-up: the run falls back to
				// the tool's CLI, with a warning.
				broken := filepath.Join(t.TempDir(), "broken-acp")
				os.WriteFile(broken, []byte("#!/bin/sh\necho 'not an ACP agent' >&2\nexit 1\n"), 0o755)
				cfgPath := filepath.Join(w.proj, ".csa", "config.toml")
				orig, _ := os.ReadFile(cfgPath)
				t.Cleanup(func() { os.WriteFile(cfgPath, orig, 0o644) })
				cfg := fmt.Sprintf("[tools.%s]\ntransport = \"acp\"\nacp_path = %q\n", tl.name, broken)
				if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
					t.Fatal(err)
				}
				r := w.run(0, "run", "--json", "--tool", tl.name, "e2e acp plain prompt")
				evs := w.events(r.SessionID)
				if r.Status != "completed" || r.Result != "Hello over ACP." || !hasEvent(evs, "warning", "transport", "cli") {
					t.Fatalf("no fallback to the CLI: %+v\n%s", r, dump(evs))
				}
			})

			t.Run("resume", func(t *testing.T) {
				w := world.in(t)
				first := w.run(0, "run", "--json", "--tool", tl.name, "e2e acp remember the word")
				second := w.run(0, "run", "--json", "--session", first.SessionID, "e2e acp what was the word")
				evs := w.events(second.SessionID)
				if second.ProviderSessionID != first.ProviderSessionID || second.Result != "The word was mango." || hasEvent(evs, "warning", "", "") {
					t.Fatalf("not resumed over ACP: %+v then %+v\n%s", first, second, dump(evs))
				}
			})

			t.Run("cancel", func(t *testing.T) {
				w := world.in(t)
				var out, errb bytes.Buffer
				c := exec.Command(csaBin, "run", "--json", "--tool", tl.name, "e2e acp slow turn")
				c.Dir, c.Env, c.Stdout, c.Stderr = w.proj, w.env, &out, &errb
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				id := w.waitRunning(t)
				start := time.Now()
				c.Process.Signal(syscall.SIGINT)
				err := c.Wait()
				took := time.Since(start)
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
					t.Fatalf("csa: %v, want exit 130\n%s\n%s", err, out.String(), errb.String())
				}
				var r result
				decode(t, out.String(), &r)
				if r.SessionID != id || r.Status != "killed" || r.Failure == nil || r.Failure.Class != "interrupted" {
					t.Fatalf("got %+v", r)
				}
				if !hasEvent(w.events(id), "signal.sent", "signal", "session/cancel") {
					t.Fatalf("no session/cancel sent:\n%s", dump(w.events(id)))
				}
				if left := tagged(id); len(left) > 0 {
					t.Fatalf("processes left behind: %v", left)
				}
				t.Logf("cancelled in %v", took.Round(time.Millisecond))
			})

			t.Run("kill", func(t *testing.T) {
				w := world.in(t)
				out, code, stderr := w.csa("run", "--json", "-d", "--tool", tl.name, "e2e acp slow turn")
				if code != 0 {
					t.Fatalf("detach: %d %s %s", code, out, stderr)
				}
				var d struct {
					SessionID string `json:"session_id"`
				}
				decode(t, out, &d)
				w.waitRunning(t)
				if out, code, stderr := w.csa("kill", d.SessionID); code != 0 {
					t.Fatalf("kill: %d %s %s", code, out, stderr)
				}
				if left := tagged(d.SessionID); len(left) > 0 {
					t.Fatalf("processes left behind: %v", left)
				}
				out, _, _ = w.csa("inspect", "--json", d.SessionID)
				var st struct {
					State string `json:"state"`
				}
				decode(t, out, &st)
				if st.State != "killed" {
					t.Fatalf("state %q", st.State)
				}
			})
		})
	}
}

// in is w reporting to t (a subtest).
func (w *world) in(t *testing.T) *world {
	c := *w
	c.t = t
	return &c
}

// waitRunning waits until a session of the project is running (its ACP
// turn is under way) and returns it.
func (w *world) waitRunning(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		out, _, _ := w.csa("ps", "--json")
		var rows []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		}
		decode(t, out, &rows)
		for _, r := range rows {
			if r.State == "running" {
				// The prompt is sent right after the state is saved.
				time.Sleep(time.Second)
				return r.ID
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no running session%s", w.requests())
	return ""
}

type event map[string]any

// events reads a session's events.jsonl.
func (w *world) events(id string) []event {
	out, _, _ := w.csa("logs", "--events", id)
	var evs []event
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			evs = append(evs, e)
		}
	}
	return evs
}

// hasEvent reports an event of type typ whose data has key = val (any
// data when key is "").
func hasEvent(evs []event, typ, key string, val any) bool {
	for _, e := range evs {
		if e["type"] != typ {
			continue
		}
		if key == "" {
			return true
		}
		if d, ok := e["data"].(map[string]any); ok && d[key] == val {
			return true
		}
	}
	return false
}

func dump(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		data, _ := json.Marshal(e)
		if len(data) > 400 {
			data = append(data[:400], "…"...)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

// tagged lists live processes that carry the session's id, after giving
// a stopping group a moment (zombies aside: a container's init may not
// reap them).
func tagged(id string) []string {
	var left []string
	for range 50 {
		left = left[:0]
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !bytes.Contains(env, []byte("CSA_SESSION_ID="+id+"\x00")) {
				continue
			}
			stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
			if i := bytes.LastIndexByte(stat, ')'); i >= 0 {
				if f := strings.Fields(string(stat[i+1:])); len(f) > 0 && f[0] == "Z" {
					continue
				}
			}
			cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			left = append(left, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
		}
		if len(left) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return left
}
