package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/taskgraph"
)

// fakeRuns fakes csa runs: a prompt "fail" fails; sessions in ended have
// ended as given (started by an earlier csa batch).
type fakeRuns struct {
	mu      sync.Mutex
	started []string
	prompt  map[string]string // session -> prompt
	ended   map[string]taskgraph.Outcome
}

func newAgents() *fakeRuns {
	return &fakeRuns{prompt: map[string]string{}, ended: map[string]taskgraph.Outcome{}}
}

func (a *fakeRuns) Exists(_ context.Context, sid string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.prompt[sid]
	return ok
}

func (a *fakeRuns) Start(_ context.Context, t *taskgraph.Task, sid string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ended := a.ended[sid]; ended || a.prompt[sid] != "" {
		return fmt.Errorf("session %s: %w", sid, taskgraph.ErrSessionExists)
	}
	a.started = append(a.started, t.ID)
	a.prompt[sid] = t.Prompt
	return nil
}

func (a *fakeRuns) Wait(_ context.Context, sid string) (taskgraph.Outcome, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if o, ok := a.ended[sid]; ok {
		return o, nil
	}
	switch p, ok := a.prompt[sid]; {
	case !ok:
		return taskgraph.Outcome{}, taskgraph.ErrNoSession
	case p == "fail":
		return taskgraph.Outcome{State: "failed", Class: "crashed", Reason: "exit status 1"}, nil
	}
	return taskgraph.Outcome{OK: true, State: "completed"}, nil
}

// clock ticks a second each time it is read.
func clock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

func newBatch(t *testing.T, text string) (*Store, *Batch) {
	t.Helper()
	tasks, err := Parse("b.toml", "/", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	s := &Store{Dir: t.TempDir()}
	b := &Batch{File: "b.toml", Tasks: tasks, Parallel: 1}
	if err := s.Create(b, time.Now()); err != nil {
		t.Fatal(err)
	}
	return s, b
}

func states(s *Summary) string {
	var out []string
	for _, t := range s.Tasks {
		out = append(out, t.ID+"="+t.State)
	}
	return strings.Join(out, " ")
}

const failing = `
[[task]]
id = "a"
prompt = "fine"
[[task]]
id = "b"
prompt = "fail"
depends_on = ["a"]
[[task]]
id = "c"
prompt = "after b"
depends_on = ["b"]
[[task]]
id = "d"
prompt = "after c"
depends_on = ["c"]
[[task]]
id = "e"
prompt = "alone"
`

func TestRunFailureAndStatus(t *testing.T) {
	s, b := newBatch(t, failing)
	ag := newAgents()
	sum, err := Run(context.Background(), s, b.ID, ag, Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := states(sum), "a=completed b=failed c=blocked d=blocked e=completed"; got != want {
		t.Errorf("states %s, want %s", got, want)
	}
	if sum.State != Failed || sum.OK() || sum.Totals != (Totals{Tasks: 5, Completed: 2, Failed: 1, Blocked: 2}) {
		t.Errorf("summary %+v", sum)
	}
	if bt := sum.Tasks[1]; ag.prompt[bt.SessionID] != "fail" || bt.FailureClass != "crashed" || bt.Reason != "failed: exit status 1" || bt.DurationMS != 1000 {
		t.Errorf("b: %+v", bt)
	}
	if sum.Tasks[3].BlockedBy != "b" {
		t.Errorf("d blocked by %q, want b", sum.Tasks[3].BlockedBy)
	}
	// Status reads the same from the journal alone.
	st, err := Status(s, b.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if states(st) != states(sum) || st.State != Failed || st.Tasks[3].BlockedBy != "b" || st.Tasks[1].DurationMS != 1000 {
		t.Errorf("status %+v\nrun %+v", st, sum)
	}
	// While a csa batch holds it, it is running, and a second is refused.
	held, err := s.hold(b.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	if st, _ := Status(s, b.ID, nil); st.State != Running {
		t.Errorf("state %s while held, want running", st.State)
	}
	if _, err := Run(context.Background(), s, b.ID, newAgents(), Options{}); !errors.Is(err, ErrBusy) {
		t.Errorf("second run: %v, want ErrBusy", err)
	}
}

// A csa batch killed after a completed, with b's run started and c's not:
// the next neither runs a again nor starts b twice, and runs the failed
// task afresh.
func TestRunResumesFromJournal(t *testing.T) {
	s, b := newBatch(t, strings.ReplaceAll(failing, `"fail"`, `"b"`))
	j, err := openJournal(s.dir(b.ID), clock())
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := &taskgraph.Task{Node: taskgraph.Node{ID: "a"}}
	for _, step := range []error{
		j.Started(context.Background(), a, "OLD-a", at),
		j.Ended(context.Background(), a, "OLD-a", taskgraph.Outcome{OK: true, State: "completed"}, at.Add(6*time.Second)),
		j.Started(context.Background(), &taskgraph.Task{Node: taskgraph.Node{ID: "e"}}, "OLD-e", at),
		j.Ended(context.Background(), &taskgraph.Task{Node: taskgraph.Node{ID: "e"}}, "OLD-e", taskgraph.Outcome{State: "failed"}, at),
		j.Started(context.Background(), &taskgraph.Task{Node: taskgraph.Node{ID: "b"}}, "OLD-b", at),
	} {
		if step != nil {
			t.Fatal(step)
		}
	}
	j.Close()
	// Killed mid-line: a torn record follows.
	f, _ := os.OpenFile(journalPath(s.dir(b.ID)), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"event":"started","task":"c","sess`)
	f.Close()
	st, err := Status(s, b.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := states(st), "a=completed b=running c=not_run d=not_run e=failed"; got != want || st.State != Stopped {
		t.Errorf("status before resume: %s (%s), want %s (stopped)", got, st.State, want)
	}
	// The session store tells how b's run ended since: completed, or
	// failed (blocking the tasks after it), or gone (resume reruns it).
	at2 := at.Add(9 * time.Second)
	for _, c := range []struct {
		ses        fakeSessions
		want, why  string
		class, blk string
	}{
		{fakeSessions{"OLD-b": {o: taskgraph.Outcome{OK: true, State: "completed"}, ended: true}}, "a=completed b=completed c=not_run d=not_run e=failed", "", "", ""},
		{fakeSessions{"OLD-b": {o: taskgraph.Outcome{State: "failed", Class: "crashed", Reason: "program exited with status 3"}, ended: true}},
			"a=completed b=failed c=blocked d=blocked e=failed", "failed: program exited with status 3", "crashed", "b"},
		{fakeSessions{"OLD-b": {}}, "a=completed b=running c=not_run d=not_run e=failed", "", "", ""},
		{fakeSessions{}, "a=completed b=not_run c=not_run d=not_run e=failed", "its session OLD-b no longer exists: csa batch resume runs it again", "", ""},
	} {
		for k, v := range c.ses {
			v.at = at2
			c.ses[k] = v
		}
		st, err := Status(s, b.ID, c.ses)
		if err != nil {
			t.Fatal(err)
		}
		bt := st.Tasks[1]
		if got := states(st); got != c.want || bt.Reason != c.why || bt.FailureClass != c.class || st.Tasks[2].BlockedBy != c.blk {
			t.Errorf("status with %v: %s, b %+v, c %+v; want %s (b: %q %q)", c.ses, got, bt, st.Tasks[2], c.want, c.class, c.why)
		}
		if bt.State == Completed && bt.DurationMS != 9000 {
			t.Errorf("b's duration %d ms, want 9000 (from the session's end)", bt.DurationMS)
		}
	}
	ag := newAgents()
	ag.ended["OLD-b"] = taskgraph.Outcome{OK: true, State: "completed"}
	sum, err := Run(context.Background(), s, b.ID, ag, Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := states(sum), "a=completed b=completed c=completed d=completed e=completed"; got != want || sum.State != Completed {
		t.Errorf("states %s (%s), want %s", got, sum.State, want)
	}
	if got := strings.Join(ag.started, " "); got != "c d e" {
		t.Errorf("started %q, want c d e: a was done, b's run alive, e failed", got)
	}
	if sum.Tasks[0].SessionID != "OLD-a" || sum.Tasks[0].DurationMS != 6000 || sum.Tasks[1].SessionID != "OLD-b" {
		t.Errorf("a: %+v; b: %+v", sum.Tasks[0], sum.Tasks[1])
	}
	data, _ := os.ReadFile(journalPath(s.dir(b.ID)))
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if strings.Contains(string(data), `"sess{`) || !strings.HasPrefix(lines[len(lines)-1], `{"event":"finished",`) {
		t.Errorf("journal after resume:\n%s", data)
	}
	if _, err := replay(s.dir(b.ID)); err != nil {
		t.Errorf("journal after resume does not replay: %v", err)
	}
}

func TestResolve(t *testing.T) {
	s, b := newBatch(t, failing)
	if id, err := s.Resolve(strings.ToLower(b.ID[:20])); err != nil || id != b.ID {
		t.Errorf("Resolve(prefix) = %q, %v", id, err)
	}
	var nf *NotFoundError
	if _, err := s.Resolve("../etc"); !errors.As(err, &nf) {
		t.Errorf("Resolve(../etc) = %v, want NotFoundError", err)
	}
	if _, err := s.Resolve("7ZZZ"); err == nil || err.Error() != `no batch matches "7ZZZ"` {
		t.Errorf("Resolve(7ZZZ) = %v", err)
	}
	b2 := &Batch{Tasks: b.Tasks}
	s.Create(b2, time.Now())
	var amb *AmbiguousError
	if _, err := s.Resolve(b.ID[:2]); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Errorf("Resolve(2 chars) = %v, want ambiguous", err)
	}
}

// fakeSessions is a session store: what is in it has ended or not.
type fakeSessions map[string]struct {
	o     taskgraph.Outcome
	at    time.Time
	ended bool
}

func (f fakeSessions) Ended(id string) (taskgraph.Outcome, time.Time, bool, error) {
	s, ok := f[id]
	if !ok {
		return taskgraph.Outcome{}, time.Time{}, false, taskgraph.ErrNoSession
	}
	return s.o, s.at, s.ended, nil
}
