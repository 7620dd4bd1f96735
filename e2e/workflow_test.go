package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const workflowScript = `
[[rule]]
name = "wf-codex"
contains = "e2e workflow codex saw SEED-42"
  [[rule.step]]
  text = "codex says CODEX-OK"

[[rule]]
name = "wf-claude"
contains = "e2e workflow claude got codex says CODEX-OK"
  [[rule.step]]
  text = "CLAUDE-DONE"
`

const workflowFile = `+++
name = "e2e"
[variables]
mode = "go"
items = ["alpha", "beta", "gamma"]
+++
## Step 1: Seed
` + "```sh\necho seed >> count1.txt; echo SEED-42\n```" + `

## IF mode == "go"
## Step 2: Ask codex
Tool: codex
e2e workflow codex saw ${steps.1.output}
## ELSE
## Step 3: Never
` + "```sh\necho never >> never.txt\n```" + `
## ENDIF

## FOR x IN ${items} MAX 3
## Step 4: Each
` + "```sh\necho ${x} >> count4.txt; echo ${x}\n```" + `
## ENDFOR

## INCLUDE parts/wait.md

## Step 6: Ask claude
Tool: claude-code
e2e workflow claude got ${steps.2.output}
`

const waitPart = "## Step 5: Wait\n```sh\necho five >> count5.txt; touch started5; until [ -e go5 ]; do sleep 0.05; done\n```\n"

// TestWorkflowRealAgents runs a workflow of IF/ELSE, a FOR over three
// items and an INCLUDE with real Codex and Claude Code steps, SIGKILLs it
// mid-way and resumes it: finished steps are not repeated, and a step's
// output reaches the next step's prompt (the model server answers Claude
// Code only when its prompt carries Codex's answer).
func TestWorkflowRealAgents(t *testing.T) {
	w := newWorld(t, workflowScript)
	os.MkdirAll(filepath.Join(w.proj, "parts"), 0o755)
	for name, text := range map[string]string{"wf.md": workflowFile, "parts/wait.md": waitPart} {
		if err := os.WriteFile(filepath.Join(w.proj, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	c := exec.Command(csaBin, "workflow", "run", "wf.md")
	c.Dir, c.Env, c.Stdout, c.Stderr = w.proj, w.env, &out, &errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(w.proj, "started5")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			c.Process.Kill()
			c.Wait()
			t.Fatalf("step 5 never started\nstdout: %s\nstderr: %s\n%s", out.String(), errb.String(), w.requests())
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	id := strings.TrimSpace(strings.SplitN(out.String(), "\n", 2)[0])
	if len(id) != 26 {
		t.Fatalf("the run id comes first: %q", out.String())
	}
	if err := os.WriteFile(filepath.Join(w.proj, "go5"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sout, code, serr := w.csa("workflow", "resume", "--json", id)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s\n%s", code, sout, serr, w.requests())
	}
	var st struct {
		State string `json:"state"`
		Steps []struct {
			Key, Tool, Status, Output, SessionID string
		} `json:"steps"`
	}
	decode(t, sout, &st)
	got := map[string]string{}
	for _, s := range st.Steps {
		got[s.Key] = s.Status + ":" + s.Output
	}
	want := map[string]string{"1": "completed:SEED-42", "2": "completed:codex says CODEX-OK", "4[0]": "completed:alpha",
		"4[1]": "completed:beta", "4[2]": "completed:gamma", "5": "completed:", "6": "completed:CLAUDE-DONE"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("step %s: %q, want %q", k, got[k], v)
		}
	}
	if st.State != "completed" || len(st.Steps) != len(want) {
		t.Fatalf("run: %s with %d steps: %s", st.State, len(st.Steps), sout)
	}
	// Side effects: finished steps ran once; step 5, cut off, ran again.
	for file, n := range map[string]int{"count1.txt": 1, "count4.txt": 3, "count5.txt": 2} {
		b, _ := os.ReadFile(filepath.Join(w.proj, file))
		if lines := strings.Count(string(b), "\n"); lines != n {
			t.Errorf("%s has %d lines, want %d: %q", file, lines, n, b)
		}
	}
	if _, err := os.Stat(filepath.Join(w.proj, "never.txt")); err == nil {
		t.Error("the ELSE branch ran")
	}
	codexAsked := 0
	for _, r := range w.settled() {
		if r.Rule == "wf-codex" {
			codexAsked++
		}
	}
	if codexAsked != 1 || !w.matched("wf-claude") {
		t.Fatalf("codex asked %d times (want 1), claude's prompt carried codex's answer: %v%s", codexAsked, w.matched("wf-claude"), w.requests())
	}
	if !strings.Contains(serr, "step 2 'Ask codex': completed before (not run again)") {
		t.Fatalf("resume stderr: %s", serr)
	}
}
