package todo

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/taskgraph"
)

// dying is a launcher that dies as it launches task A: before its session
// exists, or (made) just after. The todo run stops there, as a SIGKILL
// would stop it: its context ends, so nothing more is committed.
type dying struct {
	*fakeAgents
	made   bool
	cancel context.CancelFunc
}

func (d *dying) Start(ctx context.Context, t *taskgraph.Task, sid string) error {
	if d.made {
		if err := d.fakeAgents.Start(ctx, t, sid); err != nil {
			return err
		}
	}
	d.cancel()
	return errors.New("killed")
}

const onePlan = `# One

status: approved

- [ ] A: only
`

// killedAtLaunch runs a plan of one task whose todo run is killed at the
// launch, and returns the store, the plan, the fake and the session the
// plan recorded.
func killedAtLaunch(t *testing.T, made bool) (*Store, string, *fakeAgents, string) {
	t.Helper()
	s := newStore(t)
	id := create(t, s, onePlan)
	p, _ := s.Get(id)
	f := newFake(p)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := Run(ctx, s, id, &dying{fakeAgents: f, made: made, cancel: cancel}, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	p, _ = s.Get(id)
	sid := p.Task("A").Session
	log, _ := s.Log(context.Background(), id)
	if sid == "" || p.Task("A").Done || !strings.Contains(log[0].Subject, "task A starting (session "+sid+")") {
		t.Fatalf("plan after the kill: session %q, done %v, last commit %q", sid, p.Task("A").Done, log[0].Subject)
	}
	return s, id, f, sid
}

// Killed before the launch made the session: the next todo run starts it
// once, as the session the plan names.
func TestResumeAfterKillBeforeLaunch(t *testing.T) {
	s, id, f, sid := killedAtLaunch(t, false)
	sum, err := Run(context.Background(), s, id, f, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if outcomes(sum) != "A=done" || sum.Tasks[0].SessionID != sid || strings.Join(f.made, " ") != sid {
		t.Errorf("resume: %s as %s, made %v; want done as %s, made once", outcomes(sum), sum.Tasks[0].SessionID, f.made, sid)
	}
}

// Killed after the launch made the session, before the run was recorded
// started: the next todo run waits for it and starts nothing.
func TestResumeAfterKillAfterLaunch(t *testing.T) {
	s, id, f, sid := killedAtLaunch(t, true)
	sum, err := Run(context.Background(), s, id, f, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if outcomes(sum) != "A=done" || sum.Tasks[0].SessionID != sid || strings.Join(f.made, " ") != sid {
		t.Errorf("resume: %s as %s, made %v; want done as %s, made once (before the kill)", outcomes(sum), sum.Tasks[0].SessionID, f.made, sid)
	}
	if strings.Join(f.waits, " ") != sid {
		t.Errorf("waited for %v, want %s", f.waits, sid)
	}
}
