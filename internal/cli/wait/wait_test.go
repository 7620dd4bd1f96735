package wait

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/interactive"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/session"
)

func TestOutcomes(t *testing.T) {
	for s, want := range map[session.Status]outcome{
		session.Pending: pending, session.Running: pending, session.Completed: reached,
		session.Failed: failed, session.Crashed: failed, session.Killed: failed, session.TimedOut: failed,
	} {
		if got := headless(s); got != want {
			t.Errorf("headless(%s) = %d, want %d", s, got, want)
		}
	}
	for _, c := range []struct {
		state, until interactive.State
		want         outcome
	}{
		{interactive.WaitingInput, interactive.WaitingInput, reached},
		{interactive.Completed, interactive.WaitingInput, reached}, // an agent that exited 0
		{interactive.InProgress, interactive.WaitingInput, pending},
		{interactive.WaitingInput, interactive.Completed, pending},
		{interactive.Degraded, interactive.Completed, pending},
		{interactive.Crashed, interactive.WaitingInput, failed},
		{interactive.Stuck, interactive.Completed, failed},
		{interactive.Crashed, interactive.Crashed, reached}, // asked for
		{interactive.Killed, interactive.WaitingInput, failed},
		{interactive.Killed, interactive.Completed, failed},
		{interactive.Killed, interactive.Killed, reached}, // asked for
	} {
		if got := interactiveOutcome(c.state, c.until); got != c.want {
			t.Errorf("interactiveOutcome(%s, until %s) = %d, want %d", c.state, c.until, got, c.want)
		}
	}
}

func TestSettle(t *testing.T) {
	for _, c := range []struct {
		outs []outcome
		any  bool
		done bool
		exit int
	}{
		{[]outcome{reached, reached}, false, true, 0},
		{[]outcome{reached, pending}, false, false, 0},
		{[]outcome{failed, pending}, false, false, 0}, // every session is waited for
		{[]outcome{failed, reached}, false, true, 1},
		{[]outcome{pending, pending}, true, false, 0},
		{[]outcome{pending, reached}, true, true, 0},
		{[]outcome{failed, pending}, true, true, 1}, // the first to settle failed
		{[]outcome{failed, reached}, true, true, 0}, // --any: one reached its goal
	} {
		done, exit := settle(c.outs, c.any)
		if done != c.done || (done && exit != c.exit) {
			t.Errorf("settle(%v, any=%v) = %v, %d; want %v, %d", c.outs, c.any, done, exit, c.done, c.exit)
		}
	}
}

// world is a project with a state directory and a factory.
type world struct {
	f        *cmdutil.Factory
	out, err bytes.Buffer
	store    *session.Store
}

func newWorld(t *testing.T) *world {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".csa"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(proj)
	w := &world{}
	env := map[string]string{"CSA_STATE_DIR": filepath.Join(dir, "state"), "HOME": dir}
	w.f = &cmdutil.Factory{
		IO:     &cmdutil.IOStreams{Out: &w.out, ErrOut: &w.err},
		Getenv: func(k string) string { return env[k] },
		Now:    time.Now,
	}
	store, _, err := w.f.CwdStore()
	if err != nil {
		t.Fatal(err)
	}
	w.store = store
	return w
}

// session saves a headless session; a running one keeps its supervisor
// lock held by the test, so it is not settled as crashed.
func (w *world) session(t *testing.T, status session.Status) string {
	id := session.NewID(time.Now())
	h, err := w.store.Create(id)
	if err != nil {
		t.Fatal(err)
	}
	st := &session.State{ID: id, Tool: "codex", Status: status, CreatedAt: time.Now()}
	if status.Ended() {
		st.EndedAt = time.Now()
	}
	if err := w.store.Save(st); err != nil {
		t.Fatal(err)
	}
	if status.Ended() {
		h.Release()
	} else {
		t.Cleanup(func() { h.Release() })
	}
	return id
}

func exitOf(err error) int {
	if err == nil {
		return 0
	}
	var s *cmdutil.Silent
	if errors.As(err, &s) {
		return s.Exit
	}
	_, code := cmdutil.Classify(err)
	return code
}

// SIGINT or SIGTERM ends a wait with 130, after saying where the sessions
// stood.
func TestInterrupted(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM} {
		w := newWorld(t)
		id := w.session(t, session.Running)
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(&interrupt.Signal{Sig: sig})
		err := Run(ctx, &Options{F: w.f, IDs: []string{id}, Poll: time.Millisecond})
		if got := exitOf(err); got != cmdutil.ExitInterrupted {
			t.Fatalf("%v: exit %d (%v), want 130", sig, got, err)
		}
		if !strings.Contains(w.out.String(), id+"\trunning") || !strings.Contains(w.err.String(), "wait interrupted by SIG") {
			t.Fatalf("%v: stdout %q, stderr %q", sig, w.out.String(), w.err.String())
		}
	}
}

// Usage errors exit 2, whatever the sessions' kind.
func TestUsageErrors(t *testing.T) {
	w := newWorld(t)
	done := w.session(t, session.Completed)
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, "give one or more session ids (see csa ps)"},
		{Options{IDs: []string{done}, Until: "bogus"}, `--until: unknown state "bogus"`},
		{Options{IDs: []string{done}, Until: "waiting_input"}, "--until waiting_input is for interactive sessions"},
		{Options{IDs: []string{"not-an-id!"}}, ""},
		{Options{IDs: []string{"01ZZZZZZZZZZZZZZZZZZZZZZZZ"}}, "no session matches"},
	} {
		c.o.F = w.f
		err := Run(context.Background(), &c.o)
		if got := exitOf(err); got != cmdutil.ExitUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: exit %d, %v; want 2, %q", c.o.IDs, got, err, c.want)
		}
	}
	// --until completed is the goal of a headless session anyway.
	if err := Run(context.Background(), &Options{F: w.f, IDs: []string{done}, Until: "completed"}); err != nil {
		t.Fatalf("--until completed on a headless session: %v", err)
	}
}
