package taskgraph

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// dyingAgents is a scheduler's launcher that dies at the launch of task
// A: before the session exists (make false) or just after it was made
// (make true). A real kill there writes nothing more; here the scheduler
// sees its context end, which stops it writing too.
type dyingAgents struct {
	*fakeAgents
	make   bool
	cancel context.CancelFunc
}

func (d *dyingAgents) Start(ctx context.Context, t *Task, sid string) error {
	if t.ID != "A" {
		return d.fakeAgents.Start(ctx, t, sid)
	}
	if d.make {
		if err := d.fakeAgents.Start(ctx, t, sid); err != nil {
			return err
		}
	}
	d.cancel()
	return errors.New("killed")
}

// resumed are the tasks as the next scheduler finds them in the journal:
// the session of each task recorded and not ended.
func resumed(tasks []*Task, j *memJournal) []*Task {
	out := make([]*Task, len(tasks))
	for i, t := range tasks {
		c := *t
		for _, l := range j.lines {
			if w := strings.Fields(l); len(w) >= 3 && w[1] == t.ID {
				switch w[0] {
				case "starting", "started":
					c.Session = w[2]
				case "ended":
					c.Session = ""
				}
			}
		}
		out[i] = &c
	}
	return out
}

// A scheduler killed after recording a run's session and before the
// launch: the next one launches it with the recorded id, once.
func TestKilledBeforeTheLaunch(t *testing.T) {
	f, j, first := dieAt(t, false)
	if len(f.made) != 0 {
		t.Fatalf("sessions made before the kill: %v", f.made)
	}
	res := Run(context.Background(), resumed([]*Task{task("A", "a")}, j), f, j, Options{Who: "test run"})
	if got := outcomes(res); got != "A=done" {
		t.Fatalf("resume: %s", got)
	}
	if strings.Join(f.made, " ") != first || res[0].SessionID != first {
		t.Errorf("the resume made %v (result %s), want the recorded %s once", f.made, res[0].SessionID, first)
	}
	if !j.has("ended A " + first + " ok=true completed") {
		t.Errorf("journal %v", j.lines)
	}
}

// A scheduler killed after the launch made the session and before it
// recorded it started: the next one finds the session exists and waits
// for it, starting nothing.
func TestKilledAfterTheLaunch(t *testing.T) {
	f, j, first := dieAt(t, true)
	if strings.Join(f.made, " ") != first {
		t.Fatalf("the launch made %v, want %s", f.made, first)
	}
	var said []string
	res := Run(context.Background(), resumed([]*Task{task("A", "a")}, j), f, j,
		Options{Who: "test run", Say: func(s string) { said = append(said, s) }})
	if got := outcomes(res); got != "A=done" {
		t.Fatalf("resume: %s", got)
	}
	if len(f.made) != 1 || res[0].SessionID != first {
		t.Errorf("sessions made %v (result %s): want only %s", f.made, res[0].SessionID, first)
	}
	if want := "task A: waiting for session " + first + ", started by an earlier test run"; !strings.Contains(strings.Join(said, "\n"), want) {
		t.Errorf("said %q, want %q", said, want)
	}
}

// dieAt runs task A with a launcher that dies at its launch and returns
// the fake, the journal and the session recorded for A.
func dieAt(t *testing.T, made bool) (*fakeAgents, *memJournal, string) {
	t.Helper()
	tasks := []*Task{task("A", "a")}
	j := &memJournal{}
	f := newFake(tasks, j)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := Run(ctx, tasks, &dyingAgents{fakeAgents: f, make: made, cancel: cancel}, j, Options{})
	// A launch cut short that made its session reports it running (it
	// goes on), one that did not, not run.
	want := "A=not_run"
	if made {
		want = "A=running"
	}
	if got := outcomes(res); got != want || (made && res[0].SessionID == "") {
		t.Fatalf("killed run: %s (session %q), want %s", got, res[0].SessionID, want)
	}
	if len(j.lines) != 1 || !strings.HasPrefix(j.lines[0], "starting A ") {
		t.Fatalf("journal of the killed run %v: want only A starting", j.lines)
	}
	for _, e := range f.errs {
		t.Error(e)
	}
	return f, j, strings.Fields(j.lines[0])[2]
}
