package taskgraph

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAgents runs tasks in memory. A prompt is a list of words: "fail"
// makes the run fail; "meet X" makes Start wait until task X has started
// too (so it passes only when both run at once); "hang" makes Wait block
// until its context ends.
type fakeAgents struct {
	mu      sync.Mutex
	j       *memJournal
	started []string             // task ids, in order
	made    []string             // the sessions Start made, in order
	session map[string]*Task     // session -> task
	ended   map[string]Outcome   // sessions that ended before this run
	gone    map[string]bool      // sessions that no longer exist
	came    map[string]chan bool // closed when the task starts
	errs    []string             // what went wrong inside the fake
}

func newFake(tasks []*Task, j *memJournal) *fakeAgents {
	f := &fakeAgents{j: j, session: map[string]*Task{}, ended: map[string]Outcome{}, gone: map[string]bool{}, came: map[string]chan bool{}}
	for _, t := range tasks {
		f.came[t.ID] = make(chan bool)
	}
	return f
}

func (f *fakeAgents) Exists(_ context.Context, sid string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ended := f.ended[sid]
	return (f.session[sid] != nil || ended) && !f.gone[sid]
}

func (f *fakeAgents) Start(ctx context.Context, t *Task, sid string) error {
	f.mu.Lock()
	_, ended := f.ended[sid]
	if (f.session[sid] != nil || ended) && !f.gone[sid] {
		f.mu.Unlock()
		return fmt.Errorf("csa run exited 2: session %s already exists (session_exists): %w", sid, ErrSessionExists)
	}
	if !f.j.has("starting " + t.ID + " " + sid) {
		f.errs = append(f.errs, "launched "+sid+" before it was recorded")
	}
	delete(f.gone, sid)
	f.started = append(f.started, t.ID)
	f.made = append(f.made, sid)
	f.session[sid] = t
	select {
	case <-f.came[t.ID]:
	default:
		close(f.came[t.ID])
	}
	f.mu.Unlock()
	for _, other := range meets(t.Prompt) {
		select {
		case <-f.came[other]:
		case <-time.After(time.Minute):
			return fmt.Errorf("%s never started while %s ran", other, t.ID)
		}
	}
	return nil
}

func meets(prompt string) []string {
	var out []string
	w := strings.Fields(prompt)
	for i := 0; i+1 < len(w); i++ {
		if w[i] == "meet" {
			out = append(out, w[i+1])
		}
	}
	return out
}

func (f *fakeAgents) Wait(ctx context.Context, sid string) (Outcome, error) {
	f.mu.Lock()
	t := f.session[sid]
	o, ended := f.ended[sid]
	gone := f.gone[sid]
	f.mu.Unlock()
	switch {
	case gone:
		return Outcome{}, ErrNoSession
	case ended:
		return o, nil
	case t == nil:
		return Outcome{}, fmt.Errorf("unknown session %s", sid)
	}
	// The session must be in the journal before it is waited for.
	if !f.j.has("starting " + t.ID + " " + sid) {
		f.mu.Lock()
		f.errs = append(f.errs, "waited for "+sid+" before it was recorded")
		f.mu.Unlock()
	}
	switch {
	case strings.Contains(t.Prompt, "hang"):
		<-ctx.Done()
		return Outcome{}, ctx.Err()
	case strings.Contains(t.Prompt, "fail"):
		return Outcome{State: "failed", Class: "crashed", Reason: "it broke"}, nil
	}
	return Outcome{OK: true, State: "completed"}, nil
}

// memJournal keeps the records in memory, one line each.
type memJournal struct {
	mu    sync.Mutex
	lines []string
	fail  string // a task whose Ended is refused
}

func (j *memJournal) Starting(_ context.Context, t *Task, sid string, at time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if at.IsZero() {
		return fmt.Errorf("no start time")
	}
	j.lines = append(j.lines, "starting "+t.ID+" "+sid)
	return nil
}

func (j *memJournal) Started(_ context.Context, t *Task, sid string, at time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if at.IsZero() {
		return fmt.Errorf("no start time")
	}
	j.lines = append(j.lines, "started "+t.ID+" "+sid)
	return nil
}

func (j *memJournal) Ended(_ context.Context, t *Task, sid string, o Outcome, _ time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if t.ID == j.fail {
		return fmt.Errorf("disk full")
	}
	j.lines = append(j.lines, fmt.Sprintf("ended %s %s ok=%v %s", t.ID, sid, o.OK, o.Why()))
	return nil
}

func (j *memJournal) has(line string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, l := range j.lines {
		if l == line {
			return true
		}
	}
	return false
}

func task(id, prompt string, after ...string) *Task {
	return &Task{Node: Node{ID: id, After: after}, Spec: Spec{Prompt: prompt}}
}

func outcomes(res []Result) string {
	var b []string
	for _, r := range res {
		b = append(b, r.ID+"="+r.Outcome)
	}
	return strings.Join(b, " ")
}

func run(t *testing.T, ctx context.Context, tasks []*Task, o Options) ([]Result, *fakeAgents, *memJournal) {
	t.Helper()
	if err := Check(nodesOf(tasks)); err != nil {
		t.Fatal(err)
	}
	j := &memJournal{}
	f := newFake(tasks, j)
	res := Run(ctx, tasks, f, j, o)
	for _, e := range f.errs {
		t.Error(e)
	}
	return res, f, j
}

func nodesOf(tasks []*Task) []Node {
	var out []Node
	for _, t := range tasks {
		out = append(out, t.Node)
	}
	return out
}

// The middle of a diamond runs at once (B and C each wait for the other
// to start), D after both, E alongside; every session is journalled.
func TestRunDiamond(t *testing.T) {
	tasks := []*Task{task("A", "a"), task("B", "meet C", "A"), task("C", "meet B", "A"), task("D", "d", "B", "C"), task("E", "e")}
	res, f, j := run(t, context.Background(), tasks, Options{Parallel: 2})
	if got, want := outcomes(res), "A=done B=done C=done D=done E=done"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
	pos := map[string]int{}
	for i, id := range f.started {
		pos[id] = i
	}
	if pos["A"] > pos["B"] || pos["A"] > pos["C"] || pos["D"] < pos["B"] || pos["D"] < pos["C"] {
		t.Errorf("start order %v breaks the dependencies", f.started)
	}
	for _, r := range res {
		if !j.has("ended "+r.ID+" "+r.SessionID+" ok=true completed") || r.Started.IsZero() || r.Ended.Before(r.Started) {
			t.Errorf("task %s: %+v, journal %v", r.ID, r, j.lines)
		}
	}
}

// With no bound of its own, every ready task starts at once: three tasks
// that each wait for the other two.
func TestRunUnbounded(t *testing.T) {
	tasks := []*Task{task("A", "meet B meet C"), task("B", "meet A meet C"), task("C", "meet A meet B")}
	res, _, _ := run(t, context.Background(), tasks, Options{})
	if got, want := outcomes(res), "A=done B=done C=done"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
}

// --parallel 1 runs one task at a time: a second start while one runs
// is a failure of the bound.
func TestRunParallelBound(t *testing.T) {
	tasks := []*Task{task("A", "a"), task("B", "b"), task("C", "c")}
	j := &memJournal{}
	f := &boundAgents{fakeAgents: newFake(tasks, j)}
	res := Run(context.Background(), tasks, f, j, Options{Parallel: 1})
	if got, want := outcomes(res), "A=done B=done C=done"; got != want || f.over {
		t.Errorf("outcomes %s (want %s), more than one at once: %v", got, want, f.over)
	}
}

type boundAgents struct {
	*fakeAgents
	mu   sync.Mutex
	now  int
	over bool
}

func (b *boundAgents) Start(ctx context.Context, t *Task, sid string) error {
	b.mu.Lock()
	b.now++
	b.over = b.over || b.now > 1
	b.mu.Unlock()
	return b.fakeAgents.Start(ctx, t, sid)
}

func (b *boundAgents) Wait(ctx context.Context, sid string) (Outcome, error) {
	defer func() { b.mu.Lock(); b.now--; b.mu.Unlock() }()
	return b.fakeAgents.Wait(ctx, sid)
}

func TestRunFailureBlocksDependents(t *testing.T) {
	tasks := []*Task{task("A", "a"), task("B", "fail", "A"), task("C", "c", "B"), task("D", "d", "C"), task("E", "e")}
	res, _, j := run(t, context.Background(), tasks, Options{Parallel: 1})
	if got, want := outcomes(res), "A=done B=failed C=blocked D=blocked E=done"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
	b := res[1]
	if b.Class != "crashed" || b.Reason != "failed: it broke" || b.SessionID == "" {
		t.Errorf("B: %+v", b)
	}
	if res[2].BlockedBy != "B" || res[3].BlockedBy != "B" {
		t.Errorf("C, D blocked by %q, %q; want B", res[2].BlockedBy, res[3].BlockedBy)
	}
	if !j.has("ended B " + b.SessionID + " ok=false failed: it broke") {
		t.Errorf("journal lacks B's failure: %v", j.lines)
	}
}

// --fail-fast starts nothing after the first failure.
func TestRunFailFast(t *testing.T) {
	tasks := []*Task{task("A", "fail"), task("B", "b"), task("C", "c", "A")}
	res, f, _ := run(t, context.Background(), tasks, Options{Parallel: 1, FailFast: true})
	if got, want := outcomes(res), "A=failed B=not_run C=blocked"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
	if res[1].Reason != "not started: fail-fast after A failed" || len(f.started) != 1 {
		t.Errorf("B: %+v; started %v", res[1], f.started)
	}
}

// A run an earlier scheduler started is waited for, not started again;
// one whose session is gone is started again, as the session recorded;
// done tasks are left alone.
func TestRunResumes(t *testing.T) {
	tasks := []*Task{task("A", "a"), task("B", "b", "A"), task("C", "c", "A"), task("D", "d", "B", "C")}
	tasks[0].Done, tasks[0].Session = true, "OLD-A"
	tasks[1].Session = "OLD-B"
	tasks[2].Session = "OLD-C"
	j := &memJournal{}
	f := newFake(tasks, j)
	f.ended["OLD-B"] = Outcome{OK: true, State: "completed"}
	f.gone["OLD-C"] = true
	res := Run(context.Background(), tasks, f, j, Options{Parallel: 3, Who: "test run"})
	if got, want := outcomes(res), "A=done_before B=done C=done D=done"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
	if got := strings.Join(f.started, " "); got != "C D" {
		t.Errorf("started %q, want C D (A was done, B's run alive)", got)
	}
	if f.made[0] != "OLD-C" || res[2].SessionID != "OLD-C" {
		t.Errorf("C started as %v (result %q), want OLD-C again", f.made, res[2].SessionID)
	}
	if res[0].SessionID != "OLD-A" || res[1].SessionID != "OLD-B" {
		t.Errorf("sessions %q %q, want OLD-A OLD-B", res[0].SessionID, res[1].SessionID)
	}
	if !j.has("ended B OLD-B ok=true completed") {
		t.Errorf("B's end not journalled: %v", j.lines)
	}
}

// A completion the journal refuses is a failure: it would run again.
func TestRunJournalRefusesEnd(t *testing.T) {
	tasks := []*Task{task("A", "a"), task("B", "b", "A")}
	j := &memJournal{fail: "A"}
	res := Run(context.Background(), tasks, newFake(tasks, j), j, Options{})
	if got, want := outcomes(res), "A=failed B=blocked"; got != want || res[0].Reason != "recording it done: disk full" {
		t.Errorf("outcomes %s (want %s), A: %+v", got, want, res[0])
	}
}

// When the context ends, the runs started go on (reported running) and
// nothing more starts.
func TestRunInterrupted(t *testing.T) {
	tasks := []*Task{task("A", "hang"), task("B", "b", "A")}
	ctx, cancel := context.WithCancel(context.Background())
	j := &memJournal{}
	f := newFake(tasks, j)
	var said []string
	var mu sync.Mutex
	say := func(s string) {
		mu.Lock()
		said = append(said, s)
		mu.Unlock()
		if strings.HasPrefix(s, "task A: started") {
			cancel()
		}
	}
	res := Run(ctx, tasks, f, j, Options{Say: say})
	if got, want := outcomes(res), "A=running B=not_run"; got != want || res[0].SessionID == "" {
		t.Errorf("outcomes %s (want %s), A: %+v", got, want, res[0])
	}
	if j.has("ended A "+res[0].SessionID+" ok=false ") || len(j.lines) != 2 {
		t.Errorf("journal %v: want A starting and started, not ended", j.lines)
	}
}
