package batch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/taskgraph"
)

// dying is a launcher that dies as it launches task a: before its session
// exists, or (made) just after. The csa batch stops there, as a SIGKILL
// would stop it: its context ends, so nothing more is recorded.
type dying struct {
	*fakeRuns
	made   bool
	cancel context.CancelFunc
}

func (d *dying) Start(ctx context.Context, t *taskgraph.Task, sid string) error {
	if t.ID == "a" && d.made {
		if err := d.fakeRuns.Start(ctx, t, sid); err != nil {
			return err
		}
	}
	d.cancel()
	return errors.New("killed")
}

const one = `
[[task]]
id = "a"
prompt = "a"
`

// killedAtLaunch runs a batch of one task whose csa batch is killed at
// the launch, and returns the store, the batch, the fake sessions and the
// session its journal recorded.
func killedAtLaunch(t *testing.T, made bool) (*Store, *Batch, *fakeRuns, string) {
	t.Helper()
	s, b := newBatch(t, one)
	ag := newAgents()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := Run(ctx, s, b.ID, &dying{fakeRuns: ag, made: made, cancel: cancel}, Options{Now: clock()}); err != nil {
		t.Fatal(err)
	}
	prog, err := replay(s.dir(b.ID))
	if err != nil {
		t.Fatal(err)
	}
	p := prog["a"]
	if p == nil || p.Session == "" || !p.Started.IsZero() || p.Outcome != nil {
		t.Fatalf("journal after the kill: %+v, want a's session recorded as starting only", p)
	}
	return s, b, ag, p.Session
}

// Killed before the launch made the session: status says not run, and the
// resume starts it once, as the recorded session.
func TestResumeAfterKillBeforeLaunch(t *testing.T) {
	s, b, ag, sid := killedAtLaunch(t, false)
	st, err := Status(s, b.ID, fakeSessions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := states(st); got != "a=not_run" || !strings.Contains(st.Tasks[0].Reason, "never made") {
		t.Errorf("status: %s, %q", got, st.Tasks[0].Reason)
	}
	sum, err := Run(context.Background(), s, b.ID, ag, Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	if got := states(sum); got != "a=completed" || sum.Tasks[0].SessionID != sid {
		t.Errorf("resume: %s, session %s; want completed as %s", got, sum.Tasks[0].SessionID, sid)
	}
	if strings.Join(ag.started, " ") != "a" || len(ag.prompt) != 1 {
		t.Errorf("started %v, sessions %v: want a once", ag.started, ag.prompt)
	}
}

// Killed after the launch made the session, before it was recorded
// started: the resume waits for that session and starts nothing.
func TestResumeAfterKillAfterLaunch(t *testing.T) {
	s, b, ag, sid := killedAtLaunch(t, true)
	if len(ag.prompt) != 1 || ag.prompt[sid] == "" {
		t.Fatalf("sessions made before the kill %v, want %s", ag.prompt, sid)
	}
	sum, err := Run(context.Background(), s, b.ID, ag, Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	if got := states(sum); got != "a=completed" || sum.Tasks[0].SessionID != sid {
		t.Errorf("resume: %s, session %s; want completed as %s", got, sum.Tasks[0].SessionID, sid)
	}
	if len(ag.started) != 1 || len(ag.prompt) != 1 {
		t.Errorf("started %v, sessions %v: the resume started a second run", ag.started, ag.prompt)
	}
}
