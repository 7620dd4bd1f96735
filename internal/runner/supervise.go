package runner

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/egress"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/keeper"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
)

// Supervisor runs a prepared session's program to its end.
type Supervisor struct {
	Store *session.Store
	// Stdout receives the answer text live and Stderr the program's own
	// standard error; nil discards (both are recorded regardless).
	Stdout, Stderr io.Writer
	BaseEnv        []string
	Now            func() time.Time
	// Exe is csa itself: the keeper daemon, or a run's own keeper ("" for
	// none).
	Exe string
	// Keeper, when set, is the next run's keeper, found early so that
	// finding it overlaps csa's own start; else the run finds one.
	Keeper *keeper.Keeper
	// Retries reports the agent's own retries of a failed model request
	// as they happen (nil for none).
	Retries func(agents.Retry)
	// Denied reports each connection the run's egress proxy refuses, as
	// it is refused (nil for none); each is recorded regardless.
	Denied func(egress.Decision)
}

// Supervise starts the program, waits for it under the spec's timeouts,
// ctx (an interrupt stops it: SIGTERM to its group, SIGKILL after the grace
// or on a second interrupt) and `csa kill`, and records the final state.
// The returned state is what was saved; the error is an infrastructure
// failure, not the program's.
func (s *Supervisor) Supervise(ctx context.Context, run *Run) (*session.State, error) {
	defer run.Release()
	sp, id := run.Spec, run.Spec.SessionID
	created := map[string]any{"tool": sp.Tool, "depth": run.State.Depth, "parent_id": run.State.ParentID, "detached": sp.Detached}
	if len(run.State.MCP) > 0 {
		created["mcp"] = run.State.MCP
	}
	l, err := s.begin(run, created)
	if err != nil {
		return nil, err
	}
	defer l.close()
	for _, w := range sp.Warnings {
		l.ev.Emit(events.Warning, map[string]any{"message": w})
	}
	if end := l.killedEarly(); end != nil {
		return l.finish(nil, end, agents.Outcome{}, nil)
	}
	if end := l.preRun(ctx); end != nil {
		return l.finish(nil, end, agents.Outcome{}, nil)
	}
	if end := l.fullAlready(); end != nil {
		return l.finish(nil, end, agents.Outcome{}, nil)
	}
	outLog, errLog, err := s.openLogs(id)
	if err != nil {
		return nil, err
	}
	defer outLog.Close()
	defer errLog.Close()
	if sp.ACP != nil {
		st, err := l.superviseACP(ctx, outLog, errLog)
		var fb *fallbackError
		if !errors.As(err, &fb) {
			return st, err
		}
		l.ev.Emit(events.Warning, fb.warning())
	}

	var stdin *os.File
	if sp.StdinPrompt {
		if stdin, err = os.Open(s.Store.Path(id, session.PromptFile)); err != nil {
			return nil, err
		}
		defer stdin.Close()
	}
	rOut, wOut, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	rErr, wErr, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	err = l.start(ctx, proc.Spec{
		Dir: sp.Cwd, Env: ChildEnv(s.BaseEnv, run.State, s.Store.Dir(id), sp.Env),
		Stdin: stdinReader(stdin), Stdout: wOut, Stderr: wErr, DieWithParent: true,
	}, sp.Program, sp.Args)
	if err == nil {
		if err = l.running(nil); err == nil {
			l.announce(sp.Program, nil)
		}
	}
	wOut.Close()
	wErr.Close()
	if err != nil {
		rOut.Close()
		rErr.Close()
		var se *startError
		if errors.As(err, &se) {
			return l.finish(nil, &ending{session.Failed, session.FailStart, se.msg}, agents.Outcome{}, nil)
		}
		return nil, err
	}

	parser := agents.For(agents.Tool(sp.Tool)).NewParser()
	// The log keeps the program's raw stream; a person watching sees the
	// answer text the parser finds in it.
	outP := &pump{src: rOut, log: outLog, maxLog: sp.MaxLogBytes, touch: l.touch, failed: l.noSpace,
		lines: func(line []byte) {
			for _, e := range parser.Feed(line) {
				l.observe(e)
			}
		}}
	errP := &pump{src: rErr, log: errLog, live: s.Stderr, maxLog: sp.MaxLogBytes, touch: l.touch, failed: l.noSpace}
	if sp, ok := parser.(agents.StderrParser); ok {
		errP.lines = func(line []byte) {
			for _, e := range sp.FeedStderr(line) {
				l.observe(e)
			}
		}
	}
	outDone, errDone := make(chan struct{}), make(chan struct{})
	go outP.run(outDone)
	go errP.run(errDone)

	end, _ := l.watch(ctx, watchOpts{stop: l.stopGroup, kill: l.killGroup})
	ps := l.p.Wait()
	s.drain(l.p, sp.Grace, outDone, errDone, rOut, rErr)

	out := parser.Finish(ps.ExitCode(), s.stderrTail(id))
	if end == nil {
		end = l.killedEarly() // a kill that came as the program ended
	}
	return l.finish(ps, end, out, &streams{out: outP, err: errP})
}

// observe records one event of the program's output, shows answer text to
// a person watching, and counts the agent's own retries.
func (l *life) observe(e agents.Event) {
	l.observed.Lock()
	defer l.observed.Unlock()
	l.ev.Emit(e.Type, e.Data)
	if l.budget != nil {
		l.budget.note(e)
	}
	switch d := e.Data.(type) {
	case agents.Text:
		if e.Type == agents.EvText && l.s.Stdout != nil {
			showText(l.s.Stdout, d)
		}
	case agents.Retry:
		if l.s.Retries != nil {
			l.s.Retries(d)
		}
	}
	if end := l.retries.note(e, l.run.Spec.GiveUpAfterRetries); end != nil {
		select {
		case l.giveUp <- end:
		default:
		}
	}
}

// update changes the session's state. A foreground run's first state is
// written here, once the program has started (Prepare skipped the pending
// one: a file and an fsync fewer on the start-up path). It is not
// interruptible: the end of a run is recorded whatever happens.
func (s *Supervisor) update(run *Run, fn func(*session.State) error) (*session.State, error) {
	if run.unsaved {
		if err := fn(run.State); err != nil {
			return nil, err
		}
		if err := s.Store.Save(run.State); err != nil {
			return nil, err
		}
		run.unsaved = false
		return run.State, nil
	}
	return s.Store.Update(context.Background(), run.Spec.SessionID, fn)
}

// drain waits for both output streams to reach EOF. Processes of the group
// that outlive the program are stopped too: they hold the pipes, and a run
// leaves nothing behind.
func (s *Supervisor) drain(p *proc.Process, grace time.Duration, outDone, errDone <-chan struct{}, rOut, rErr *os.File) {
	both := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		for _, c := range []<-chan struct{}{outDone, errDone} {
			select {
			case <-c:
			case <-t.C:
				return false
			}
		}
		return true
	}
	proc.SignalGroup(p.PGID(), syscall.SIGTERM)
	if !both(grace) {
		proc.SignalGroup(p.PGID(), syscall.SIGKILL)
		if !both(2 * time.Second) {
			// Someone outside the group holds the pipes; stop reading.
			rOut.Close()
			rErr.Close()
			both(time.Second)
		}
	}
	rOut.Close()
	rErr.Close()
}
