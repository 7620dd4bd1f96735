package workflow

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

// fakeCSA stands in for `csa run -d --json --session-id ID -`: it keeps
// one file per session in $FAKE_DIR (the prompt it was given), refuses an
// id that exists as csa does (exit 2, session_exists), logs every launch,
// and refuses to launch an id the run's journal does not name yet.
const fakeCSA = `#!/bin/sh
echo "$*" >> "$FAKE_DIR/launches"
while [ $# -gt 0 ]; do [ "$1" = --session-id ] && id=$2; shift; done
grep -q "\"session_id\":\"$id\"" "$JOURNAL" || { echo "launched $id before the journal named it" >&2; exit 9; }
if [ -e "$FAKE_DIR/$id" ]; then
	echo "{\"error\":{\"code\":\"session_exists\",\"message\":\"session $id already exists\"}}" >&2
	exit 2
fi
cat > "$FAKE_DIR/$id"
printf '{"session_id":"%s"}\n' "$id"
`

type window struct {
	store *Store
	info  *RunInfo
	fake  string // the sessions' directory
	env   Env
}

func newWindow(t *testing.T) *window {
	t.Helper()
	dir := t.TempDir()
	wf := filepath.Join(dir, "w.md")
	if err := os.WriteFile(wf, []byte("+++\nname = \"w\"\ntool = \"codex\"\n+++\n## Step 1: Ask\nsay hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plan, err := Compile(wf, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &window{store: OpenStore(filepath.Join(dir, "state")), fake: filepath.Join(dir, "sessions")}
	if w.info, err = w.store.Create(plan, dir, time.Now()); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "csa")
	if err := os.WriteFile(exe, []byte(fakeCSA), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(w.fake, 0o700); err != nil {
		t.Fatal(err)
	}
	w.env = Env{
		Exe: exe, Environ: []string{"PATH=" + os.Getenv("PATH"), "FAKE_DIR=" + w.fake,
			"JOURNAL=" + filepath.Join(dir, "state", "workflows", w.info.ID, "journal.jsonl")},
		Session: func(_ context.Context, id string) (*session.State, error) {
			b, err := os.ReadFile(filepath.Join(w.fake, id))
			if err != nil {
				return nil, &session.NotFoundError{Prefix: id}
			}
			return &session.State{ID: id, Status: session.Completed, Result: string(b)}, nil
		},
		Poll: time.Millisecond, Now: time.Now,
	}
	return w
}

// killed writes the journal a workflow killed at step 1's launch leaves:
// the step started, its session named, nothing after.
func (w *window) killed(t *testing.T, sid string) {
	t.Helper()
	j, err := w.store.OpenJournal(w.info.ID, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, r := range []Record{{Type: RecRunStarted}, {Type: RecStepStarted, Key: "1", Attempt: 1, Tool: "codex", SessionID: sid}} {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
}

func (w *window) run(t *testing.T) *Result {
	t.Helper()
	out, err := Execute(context.Background(), w.store, w.info, w.env)
	if err != nil || out.Status != RunCompleted || len(out.Steps) != 1 {
		t.Fatalf("Execute: %v, %+v", err, out)
	}
	return out.Steps[0]
}

func (w *window) launches(t *testing.T) []string {
	b, _ := os.ReadFile(filepath.Join(w.fake, "launches"))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func (w *window) sessions(t *testing.T) []string {
	es, _ := os.ReadDir(w.fake)
	var out []string
	for _, e := range es {
		if e.Name() != "launches" {
			out = append(out, e.Name())
		}
	}
	return out
}

// An agent step's session is named in step.started before the launch
// (the fake refuses a launch the journal does not name).
func TestAgentStepNamedBeforeLaunch(t *testing.T) {
	w := newWindow(t)
	res := w.run(t)
	if s := w.sessions(t); len(s) != 1 || res.SessionID != s[0] || res.Output != "say hi" {
		t.Fatalf("sessions %v, step %+v", s, res)
	}
	if l := w.launches(t); len(l) != 1 || !strings.Contains(l[0], "run --detach --json --session-id "+res.SessionID+" --tool codex -") {
		t.Errorf("launches %q", l)
	}
}

// Killed after naming the session, before the launch: the resume
// launches it once, with the id named.
func TestResumeAfterKillBeforeLaunch(t *testing.T) {
	w := newWindow(t)
	sid := session.NewID(time.Now())
	w.killed(t, sid)
	res := w.run(t)
	if s := w.sessions(t); len(s) != 1 || s[0] != sid || res.SessionID != sid || res.Output != "say hi" {
		t.Errorf("sessions %v, step %+v; want %s, once", s, res, sid)
	}
	if l := w.launches(t); len(l) != 1 {
		t.Errorf("launches %q, want one", l)
	}
}

// Killed after the launch made the session, before step.session: the
// resume's launch finds it exists and waits for it; nothing else starts.
func TestResumeAfterKillAfterLaunch(t *testing.T) {
	w := newWindow(t)
	sid := session.NewID(time.Now())
	w.killed(t, sid)
	if err := os.WriteFile(filepath.Join(w.fake, sid), []byte("the first launch's answer"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := w.run(t)
	if s := w.sessions(t); len(s) != 1 || res.SessionID != sid || res.Output != "the first launch's answer" {
		t.Errorf("sessions %v, step %+v; want only %s, waited for", s, res, sid)
	}
}
