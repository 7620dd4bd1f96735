package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/session"
)

// Supervisor runs a prepared session's program to its end.
type Supervisor struct {
	Store *session.Store
	// Signals delivered to csa (SIGINT, SIGTERM, SIGHUP); the first starts a
	// two-phase stop of the program's group, a second one kills it at once.
	Signals <-chan os.Signal
	// Stdout and Stderr receive the program's output live; nil discards.
	Stdout, Stderr io.Writer
	BaseEnv        []string
	Now            func() time.Time
}

// ending records why csa itself stopped the program.
type ending struct {
	status  session.Status
	class   string
	message string
}

// Supervise starts the program, waits for it under the spec's timeouts and
// signals, and records the final state. The returned state is what was
// saved; the error is an infrastructure failure, not the program's.
func (s *Supervisor) Supervise(run *Run) (*session.State, error) {
	defer run.Release()
	sp, id := run.Spec, run.Spec.SessionID
	ev, err := events.OpenWriter(s.Store.Path(id, session.EventsFile), s.Now)
	if err != nil {
		return nil, err
	}
	defer ev.Close()
	ev.Emit(events.SessionCreated, map[string]any{"tool": sp.Tool, "depth": run.State.Depth, "parent_id": run.State.ParentID, "detached": sp.Detached})

	if req := s.killRequested(id); req != "" {
		return s.finish(run, ev, nil, &ending{session.Killed, session.FailKilled, req}, agents.Outcome{}, nil)
	}
	outLog, errLog, err := s.openLogs(id)
	if err != nil {
		return nil, err
	}
	defer outLog.Close()
	defer errLog.Close()
	if sp.ACP != nil {
		if st, handled, err := s.superviseACP(run, ev, outLog, errLog); handled {
			return st, err
		}
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
	prog, args, group, confineErr := confine(sp)
	if confineErr != nil {
		wOut.Close()
		wErr.Close()
		rOut.Close()
		rErr.Close()
		return s.finish(run, ev, nil, &ending{session.Failed, session.FailStart, "cannot set up resource limits: " + confineErr.Error()}, agents.Outcome{}, nil)
	}
	spec := proc.Spec{
		Path: prog, Args: args, Dir: sp.Cwd,
		Env:   childEnv(s.BaseEnv, run.State, s.Store.Dir(id), sp.Env),
		Stdin: stdinReader(stdin), Stdout: wOut, Stderr: wErr, DieWithParent: true,
	}
	p, startErr := proc.Start(spec)
	wOut.Close()
	wErr.Close()
	if startErr != nil {
		rOut.Close()
		rErr.Close()
		measure(group, nil, nil)
		return s.finish(run, ev, nil, &ending{session.Failed, session.FailStart, startErr.Error()}, agents.Outcome{}, nil)
	}
	started := s.Now().UTC()
	if _, err := s.update(run, func(st *session.State) error {
		st.PID, st.PGID, st.SupervisorPID, st.StartedAt = p.Pid, p.PGID(), os.Getpid(), started
		// A resumed session starts its turn with a clean slate.
		st.EndedAt, st.ExitCode, st.Signal, st.Failure, st.Reason, st.Result = time.Time{}, nil, "", nil, "", ""
		st.Turns++
		return st.Move(session.Running)
	}); err != nil {
		p.Terminate(sp.Grace)
		return nil, err
	}
	ev.Emit(events.ProcessStarted, map[string]any{"pid": p.Pid, "pgid": p.PGID(), "program": sp.Program, "sandbox": sp.Sandbox.Plan.Layer})
	var sampler *resource.Sampler
	if iv := sp.Sandbox.SampleInterval; iv > 0 {
		sampler = resource.StartSampler(p.Pid, iv)
	}

	parser := agents.For(agents.Tool(sp.Tool)).NewParser()
	var lastRead atomic.Int64
	lastRead.Store(time.Now().UnixNano())
	// The log keeps the program's raw stream; a person watching sees the
	// answer text the parser finds in it.
	outP := &pump{src: rOut, log: outLog, maxLog: sp.MaxLogBytes, lastRead: &lastRead,
		lines: func(line []byte) {
			for _, e := range parser.Feed(line) {
				ev.Emit(e.Type, e.Data)
				if t, ok := e.Data.(agents.Text); ok && e.Type == agents.EvText && s.Stdout != nil {
					showText(s.Stdout, t)
				}
			}
		}}
	errP := &pump{src: rErr, log: errLog, live: s.Stderr, maxLog: sp.MaxLogBytes, lastRead: &lastRead}
	outDone, errDone := make(chan struct{}), make(chan struct{})
	go outP.run(outDone)
	go errP.run(errDone)

	end := s.watch(p, sp, ev, &lastRead)
	state := p.Wait()
	s.drain(p, sp.Grace, outDone, errDone, rOut, rErr)

	out := parser.Finish(state.ExitCode(), s.stderrTail(id))
	used := measure(group, sampler, state)
	if end == nil {
		if req := s.killRequested(id); req != "" {
			end = &ending{session.Killed, session.FailKilled, req}
		}
	}
	res := &streams{out: outP, err: errP, used: &used}
	return s.finish(run, ev, state, end, out, res)
}

// update changes the session's state. A foreground run's first state is
// written here, once the program has started (Prepare skipped the pending
// one: a file and an fsync fewer on the start-up path).
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

// watch waits for the program to exit, stopping it on a signal or a
// timeout; it returns why csa stopped it, or nil if it ended on its own.
func (s *Supervisor) watch(p *proc.Process, sp *Spec, ev *events.Writer, lastRead *atomic.Int64) *ending {
	var total <-chan time.Time
	if sp.Timeout > 0 {
		t := time.NewTimer(sp.Timeout)
		defer t.Stop()
		total = t.C
	}
	var idle <-chan time.Time
	if sp.IdleTimeout > 0 {
		t := time.NewTicker(min(max(sp.IdleTimeout/10, 10*time.Millisecond), time.Second))
		defer t.Stop()
		idle = t.C
	}
	var end *ending
	stop := func(e *ending) {
		if end != nil {
			return
		}
		end = e
		ev.Emit(events.SignalSent, map[string]any{"signal": "SIGTERM", "reason": e.message, "grace_ms": sp.Grace.Milliseconds()})
		go p.Terminate(sp.Grace)
	}
	for {
		select {
		case <-p.Done():
			return end
		case sig := <-s.Signals:
			if end != nil {
				// A second signal: the user wants it gone now.
				proc.SignalGroup(p.PGID(), syscall.SIGKILL)
				continue
			}
			stop(&ending{session.Killed, session.FailInterrupted, fmt.Sprintf("interrupted by %s", sigName(sig))})
		case <-total:
			ev.Emit(events.TimeoutHit, map[string]any{"kind": "total", "timeout_ms": sp.Timeout.Milliseconds()})
			stop(&ending{session.TimedOut, session.FailTimeout, fmt.Sprintf("timed out after %s", sp.Timeout)})
		case <-idle:
			quiet := time.Since(time.Unix(0, lastRead.Load()))
			if quiet >= sp.IdleTimeout {
				ev.Emit(events.TimeoutHit, map[string]any{"kind": "idle", "timeout_ms": sp.IdleTimeout.Milliseconds()})
				stop(&ending{session.TimedOut, session.FailTimeout, fmt.Sprintf("no output for %s (idle timeout)", sp.IdleTimeout)})
				idle = nil
			}
		}
	}
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

type streams struct {
	out, err *pump
	used     *usage
}

// finish decides the final status and saves it with the outcome.
func (s *Supervisor) finish(run *Run, ev *events.Writer, ps *os.ProcessState, end *ending, out agents.Outcome, res *streams) (*session.State, error) {
	id := run.Spec.SessionID
	now := s.Now().UTC()
	st, err := s.update(run, func(st *session.State) error {
		st.EndedAt = now
		st.Result = strings.ToValidUTF8(out.Result, "\uFFFD")
		if out.ProviderSessionID != "" {
			st.ProviderSessionID = out.ProviderSessionID
		}
		if out.Usage != nil {
			st.Usage = out.Usage
		}
		if res != nil && res.out != nil {
			st.OutputBytes = res.out.total
			st.OutputTruncated = res.out.truncated || res.err.truncated
		}
		status, fail := s.classify(id, ps, end, out)
		if res != nil && res.used != nil {
			if oom := res.used.record(st, run.Spec.Sandbox.Plan, ps, s.stderrHead(id)+s.stderrTail(id)); oom != nil && end == nil {
				status, fail = session.Failed, oom
			}
		}
		st.Failure = fail
		if fail != nil {
			st.Reason = fail.Message
		} else {
			st.Reason = "exited with status 0"
		}
		if ps != nil {
			code := ps.ExitCode()
			if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				st.Signal = sigName(ws.Signal())
				code = 128 + int(ws.Signal())
			}
			st.ExitCode = &code
		}
		return st.Move(status)
	})
	if err != nil {
		return nil, err
	}
	ev.Emit(events.SessionEnded, map[string]any{"state": st.Status, "exit_code": st.ExitCode, "reason": st.Reason})
	if st.PidsLimitHit {
		ev.Emit(events.Warning, map[string]any{"message": fmt.Sprintf("the run reached its pids limit (%d): forks were refused", st.PidsLimit)})
	}
	if path := run.Spec.Sandbox.StatsPath; path != "" && st.PeakMemoryMB > 0 {
		if warn, err := resource.OpenStats(path).Record(st.Tool, st.PeakMemoryMB); warn != "" || err != nil {
			ev.Emit(events.Warning, map[string]any{"message": fmt.Sprintf("usage statistics: %s %v", warn, err)})
		}
	}
	return st, nil
}

func (s *Supervisor) classify(id string, ps *os.ProcessState, end *ending, out agents.Outcome) (session.Status, *session.Failure) {
	switch {
	case end != nil && end.class == "":
		return end.status, nil // an ACP turn that ended well
	case end != nil:
		return end.status, &session.Failure{Class: end.class, Message: end.message}
	case ps == nil:
		return session.Failed, &session.Failure{Class: session.FailStart, Message: "program did not start"}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		msg := fmt.Sprintf("program killed by %s", sigName(ws.Signal()))
		if t := s.stderrTail(id); t != "" {
			msg += ": " + lastLine(t)
		}
		return session.Failed, &session.Failure{Class: session.FailCrashed, Message: msg}
	}
	if out.Failure != nil {
		f := *out.Failure
		if code := ps.ExitCode(); code != 0 {
			f.Message = fmt.Sprintf("program exited with status %d: %s", code, f.Message)
		}
		return session.Failed, &f
	}
	if code := ps.ExitCode(); code != 0 {
		return session.Failed, &session.Failure{Class: session.FailCrashed, Message: fmt.Sprintf("program exited with status %d", code)}
	}
	return session.Completed, nil
}
