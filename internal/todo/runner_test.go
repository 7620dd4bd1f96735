package todo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/taskgraph"
)

// fakeAgents runs tasks in memory: a task whose prompt is "fail" fails;
// one whose prompt is "meet X" starts only once task X has started too
// (so it passes only when both run at once).
type fakeAgents struct {
	mu      sync.Mutex
	started []string                     // task ids, in order
	made    []string                     // the sessions Start made
	session map[string]string            // session -> task
	ended   map[string]taskgraph.Outcome // sessions that ended before this run
	gone    map[string]bool              // sessions that no longer exist
	came    map[string]chan bool         // closed when the task starts
	waits   []string                     // sessions waited for
}

func newFake(p *Plan) *fakeAgents {
	f := &fakeAgents{session: map[string]string{}, ended: map[string]taskgraph.Outcome{}, gone: map[string]bool{}, came: map[string]chan bool{}}
	for _, t := range p.Tasks {
		f.came[t.ID] = make(chan bool)
	}
	return f
}

func (f *fakeAgents) Exists(_ context.Context, sid string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ended := f.ended[sid]
	return (f.session[sid] != "" || ended) && !f.gone[sid]
}

func (f *fakeAgents) Start(ctx context.Context, t *taskgraph.Task, sid string) error {
	f.mu.Lock()
	if _, ended := f.ended[sid]; (f.session[sid] != "" || ended) && !f.gone[sid] {
		f.mu.Unlock()
		return fmt.Errorf("session %s: %w", sid, taskgraph.ErrSessionExists)
	}
	delete(f.gone, sid)
	f.started = append(f.started, t.ID)
	f.made = append(f.made, sid)
	f.session[sid] = t.ID
	select {
	case <-f.came[t.ID]: // started before
	default:
		close(f.came[t.ID])
	}
	f.mu.Unlock()
	if other, ok := strings.CutPrefix(t.Prompt, "meet "); ok {
		select {
		case <-f.came[other]:
		case <-time.After(time.Minute):
			return fmt.Errorf("%s never started while %s ran", other, t.ID)
		}
	}
	return nil
}

func (f *fakeAgents) Wait(ctx context.Context, sid string) (taskgraph.Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits = append(f.waits, sid)
	if f.gone[sid] {
		return taskgraph.Outcome{}, taskgraph.ErrNoSession
	}
	if o, ok := f.ended[sid]; ok {
		return o, nil
	}
	if f.session[sid] == "" {
		return taskgraph.Outcome{}, fmt.Errorf("unknown session %s", sid)
	}
	return taskgraph.Outcome{OK: true, State: "completed"}, nil
}

const runPlan = `# Run me

status: approved

- [ ] A: first
- [ ] B: left (after: A)
  prompt: meet C
- [ ] C: right (after: A)
  prompt: meet B
- [ ] D: join (after: B, C)
- [ ] E: alone
`

func outcomes(s *Summary) string {
	var b []string
	for _, t := range s.Tasks {
		b = append(b, t.ID+"="+t.Outcome)
	}
	return strings.Join(b, " ")
}

func TestRunDiamond(t *testing.T) {
	s := newStore(t)
	id := create(t, s, runPlan)
	p, _ := s.Get(id)
	f := newFake(p)
	sum, err := Run(context.Background(), s, id, f, RunOptions{Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := outcomes(sum), "A=done B=done C=done D=done E=done"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
	if sum.Status != Done {
		t.Errorf("status %s, want done", sum.Status)
	}
	// D after both B and C, A before them.
	pos := map[string]int{}
	for i, id := range f.started {
		pos[id] = i
	}
	if pos["A"] > pos["B"] || pos["A"] > pos["C"] || pos["D"] < pos["B"] || pos["D"] < pos["C"] {
		t.Errorf("start order %v breaks the dependencies", f.started)
	}
	after, _ := s.Get(id)
	for _, task := range after.Tasks {
		if !task.Done || f.session[task.Session] != task.ID {
			t.Errorf("task %s: done %v, session %q", task.ID, task.Done, task.Session)
		}
	}
	log, _ := s.Log(context.Background(), id)
	var subjects []string
	for _, c := range log {
		subjects = append(subjects, c.Subject)
	}
	all := strings.Join(subjects, "\n")
	d := after.Task("D").Session
	for _, want := range []string{"status approved -> implementing", "task D starting (session " + d + ")", "task D done (session " + d + ")", "status implementing -> done"} {
		if !strings.Contains(all, want) {
			t.Errorf("log lacks %q:\n%s", want, all)
		}
	}
	// Nothing is left to do: a second run starts nothing.
	f2 := newFake(after)
	sum, err = Run(context.Background(), s, id, f2, RunOptions{Parallel: 2})
	if err != nil || len(f2.started) != 0 || outcomes(sum) != "A=done_before B=done_before C=done_before D=done_before E=done_before" {
		t.Errorf("second run: %v, started %v, %s", err, f2.started, outcomes(sum))
	}
}

type failing struct{ *fakeAgents }

func (f failing) Wait(ctx context.Context, sid string) (taskgraph.Outcome, error) {
	f.mu.Lock()
	b := f.session[sid] == "B"
	f.mu.Unlock()
	if b {
		return taskgraph.Outcome{State: "failed", Reason: "it broke"}, nil
	}
	return f.fakeAgents.Wait(ctx, sid)
}

func TestRunFailureBlocksDependents(t *testing.T) {
	s := newStore(t)
	id := create(t, s, strings.ReplaceAll(runPlan, "meet", "plain"))
	p, _ := s.Get(id)
	f := failing{newFake(p)}
	sum, err := Run(context.Background(), s, id, f, RunOptions{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := outcomes(sum), "A=done B=failed C=done D=blocked E=done"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
	if sum.Failed != 1 || sum.Blocked != 1 || sum.Status != Implementing {
		t.Errorf("summary %+v", sum)
	}
	if d := sum.Tasks[3]; d.BlockedBy != "B" {
		t.Errorf("D blocked by %q, want B", d.BlockedBy)
	}
	after, _ := s.Get(id)
	if b := after.Task("B"); b.Done || b.Session != "" {
		t.Errorf("failed task B: done %v, session %q (want not done, no session: the next run starts it afresh)", b.Done, b.Session)
	}
	log, _ := s.Log(context.Background(), id)
	if !strings.Contains(fmt.Sprint(log), id+": task B failed (session "+sum.Tasks[1].SessionID+"): failed: it broke") {
		t.Errorf("log lacks B's failure: %v", log)
	}
}

// A task whose run a dead `todo run` started is waited for, not started
// again; one whose session is gone is started again as that session; done
// tasks are left.
func TestRunResumes(t *testing.T) {
	s := newStore(t)
	id := create(t, s, strings.ReplaceAll(runPlan, "meet", "plain"))
	if _, err := s.Update(context.Background(), id, func(p *Plan) (string, error) {
		p.Status = Implementing
		p.Task("A").Done = true
		p.Task("B").Session = "OLD-B"
		p.Task("C").Session = "OLD-C"
		return "as a killed run left it", nil
	}); err != nil {
		t.Fatal(err)
	}
	p, _ := s.Get(id)
	f := newFake(p)
	f.ended["OLD-B"] = taskgraph.Outcome{OK: true, State: "completed"}
	f.gone["OLD-C"] = true
	sum, err := Run(context.Background(), s, id, f, RunOptions{Parallel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := outcomes(sum), "A=done_before B=done C=done D=done E=done"; got != want {
		t.Errorf("outcomes %s, want %s", got, want)
	}
	if strings.Contains(strings.Join(f.started, " "), "A") || strings.Contains(strings.Join(f.started, " "), "B") {
		t.Errorf("started %v: A was done and B's run was alive", f.started)
	}
	if sum.Tasks[1].SessionID != "OLD-B" || sum.Tasks[2].SessionID != "OLD-C" || f.made[0] != "OLD-C" {
		t.Errorf("sessions of B %q, C %q, made %v: want OLD-B, OLD-C (made again)", sum.Tasks[1].SessionID, sum.Tasks[2].SessionID, f.made)
	}
}

func TestRunRefusals(t *testing.T) {
	s := newStore(t)
	id := create(t, s, strings.Replace(runPlan, "status: approved", "status: draft", 1))
	p, _ := s.Get(id)
	if _, err := Run(context.Background(), s, id, newFake(p), RunOptions{}); !errors.Is(err, ErrNotApproved) {
		t.Errorf("a draft: %v, want ErrNotApproved", err)
	}
	held, err := s.runLock(id)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	if _, err := Run(context.Background(), s, id, newFake(p), RunOptions{}); !errors.Is(err, ErrBusy) {
		t.Errorf("while another run holds it: %v, want ErrBusy", err)
	}
}
