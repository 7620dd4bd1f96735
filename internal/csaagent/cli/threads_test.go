package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/thread"
	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

// hostFor is a thread.Host whose model is the scripted model server
// answering script, in a fresh home.
func hostFor(t *testing.T, script string) (thread.Host, string) {
	t.Helper()
	sc, err := modelserver.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := modelserver.New(sc, modelserver.Options{})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "XDG_STATE_HOME": filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"), "ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "k",
		"CSA_AGENT_MODEL": "anthropic/claude-test", "PATH": os.Getenv("PATH")}
	work := filepath.Join(dir, "work")
	os.MkdirAll(work, 0o755)
	return NewHost(IO{Getenv: func(k string) string { return env[k] }, Cwd: work, Stdout: os.Stdout, Stderr: os.Stderr}), work
}

// A call no rule allows goes to the front end's approver: declined, the
// model hears so; accepted for the session, the same call is not asked
// again; no approver (headless), it is denied as before.
func TestThreadApprovals(t *testing.T) {
	h, work := hostFor(t, `
[[rule]]
contains = "make files"
  [[rule.step]]
  shell = "touch a"
  [[rule.step]]
  shell = "touch a"
  [[rule.step]]
  shell = "touch a"
  [[rule.step]]
  shell = "touch b"
  [[rule.step]]
  text = "done"
`)
	th, err := h.Start(context.Background(), thread.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer th.Close()
	var mu sync.Mutex
	var asked []string
	answers := []thread.Decision{thread.Decline, thread.AcceptForSession}
	approve := func(ctx context.Context, r thread.Request) thread.Decision {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, r.Kind+":"+r.Command)
		if len(answers) == 0 {
			return thread.Decline
		}
		d := answers[0]
		answers = answers[1:]
		return d
	}
	var results []string
	sink := event.Func(func(e event.Event) {
		if e.Kind == event.ToolFinished {
			mu.Lock()
			results = append(results, e.Text)
			mu.Unlock()
		}
	})
	out := th.Run(context.Background(), "make files", sink, approve)
	if out.IsError || out.Text != "done" {
		t.Fatalf("outcome %+v", out)
	}
	// Declined, accepted for the session, asked nothing (same call), then
	// asked about another command, which is declined (no answers left).
	if got := strings.Join(asked, ","); got != "command:touch a,command:touch a,command:touch b" {
		t.Errorf("asked %q", got)
	}
	if len(results) != 4 || !strings.Contains(results[0], "declined") || !strings.Contains(results[3], "declined") {
		t.Errorf("tool results %q", results)
	}
	if _, err := os.Stat(filepath.Join(work, "a")); err != nil {
		t.Errorf("the accepted call did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "b")); err == nil {
		t.Error("the declined call ran")
	}

	list, err := h.List(context.Background())
	if err != nil || len(list) != 1 || list[0].ID != th.ID() || list[0].Preview != "make files" || list[0].Cwd != work {
		t.Fatalf("List = %+v, %v", list, err)
	}
}

// skills/list of the app-server lists a project's skills and the files
// that broke, with their paths.
func TestAppServerSkillsOf(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	for path, body := range map[string]string{
		".git/HEAD":                     "ref: refs/heads/main\n",
		".claude/skills/greet/SKILL.md": "---\nname: greet\ndescription: say hello\n---\nSay hello to $ARGUMENTS.\n",
		".claude/skills/bad/SKILL.md":   "---\nallowed-tools: Bash(\n---\n",
	} {
		p := filepath.Join(proj, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": filepath.Join(dir, "home")}
	list, errs := skillsOf(IO{Getenv: func(k string) string { return env[k] }, Cwd: proj})(proj)
	if len(list) != 1 || list[0].Name != "greet" || list[0].Description != "say hello" || list[0].Scope != "project" || !list[0].Enabled {
		t.Errorf("skills %+v", list)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Path, "bad") {
		t.Errorf("errors %+v: want the broken SKILL.md named", errs)
	}
}
