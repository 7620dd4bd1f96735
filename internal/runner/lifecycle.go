package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/keeper"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/sandbox"
	"github.com/csa-dev/csa/internal/session"
)

// life is one turn of a session, the same for the program's own CLI
// stream, an ACP agent and the pane wrapper of an interactive session:
// begin (the events, a kill asked for before the start), start (the group
// keeper, the sandbox, the program, the running state), watch (timeouts,
// interrupts, csa kill, an agent that keeps retrying a rate limit) and
// finish (what it used, the last events, then the state that ends it).
type life struct {
	s       *Supervisor
	run     *Run
	ev      *events.Writer
	keeper  *keeper.Keeper
	group   *resource.Group
	sampler *resource.Sampler
	p       *proc.Process
	started time.Time // when p started
	// lastOutput is when the program last wrote anything (the idle clock),
	// in Unix nanoseconds.
	lastOutput atomic.Int64
	// giveUp ends the run early, from the output pump: the agent reported
	// that it keeps retrying a rate limit.
	giveUp chan *ending
	// full ends the run early when its records cannot be written for
	// lack of space (noSpace).
	full chan *ending
	// abandoned: the run was given up on (to fail over); nothing of it is
	// kept, so it is stopped without waiting out the grace.
	abandoned bool
	// observed serialises what the two output pumps observe.
	observed sync.Mutex
	retries  retryCount
	// killGrace is the grace a `csa kill` asked for, once one has.
	killGrace *time.Duration
	// radar watches a worktree run's changed paths while it runs.
	radar *overlapWatch
	// policy is the sandbox policy the program runs under (its proxy's
	// address set), egress the run's own proxy (nil for none).
	policy *sandbox.Policy
	egress *egressProxy
	// budget follows the tree's cost of a run with --max-cost; nil for
	// none.
	budget *budget
}

// ending records why csa itself stopped the program.
type ending struct {
	status  session.Status
	class   string
	message string
}

// abandonGrace is the grace of an abandoned run: the next model waits.
const abandonGrace = 500 * time.Millisecond

// startError is a program that could not be started: the run ends
// start_failed (or an ACP run falls back to the CLI, unless it was the
// sandbox that failed: the CLI would fare no better).
type startError struct {
	msg     string
	sandbox bool // the resource limits could not be set up
}

func (e *startError) Error() string { return e.msg }

// begin opens the session's events and records its creation.
func (s *Supervisor) begin(run *Run, created map[string]any) (*life, error) {
	ev, err := events.OpenWriter(s.Store.Path(run.Spec.SessionID, session.EventsFile), s.Now)
	if err != nil {
		return nil, err
	}
	l := &life{s: s, run: run, ev: ev, giveUp: make(chan *ending, 1), full: make(chan *ending, 1)}
	if run.State != nil {
		l.budget = newBudget(run.Spec, run.State.Model)
	}
	ev.OnFailure(l.noSpace)
	// Space for the state that ends the run, should the disk fill up: if
	// none can be had now, the end is recorded when there is room.
	s.Store.Reserve()
	l.touch()
	ev.Emit(events.SessionCreated, created)
	return l, nil
}

// close ends what begin and start opened; finish has recorded the end.
func (l *life) close() {
	l.radar.end()
	l.closeEgress()
	if l.keeper != nil {
		l.keeper.Release()
	}
	l.ev.Close()
}

func (l *life) touch() { l.lastOutput.Store(time.Now().UnixNano()) }

// killedEarly is the ending of a session `csa kill` asked to stop before
// its program started.
func (l *life) killedEarly() *ending {
	if req := l.s.killRequested(l.run.Spec.SessionID); req != nil {
		l.killGrace = req.grace()
		return &ending{session.Killed, session.FailKilled, req.Reason}
	}
	return nil
}

// start finds the run's keeper, then confines prog (its cgroup and
// csa's exec shim) and starts it as spec says. A program that cannot start
// is a *startError. The caller then records the session running and
// announces the start: the record comes first, so a supervisor that dies
// the moment after leaves a session found crashed, not a nameless one.
func (l *life) start(ctx context.Context, spec proc.Spec, prog string, args []string) error {
	sp := l.run.Spec
	// An interrupt from here on must stop the program and be recorded.
	interrupt.Ready(ctx)
	pol, proxyEnv, err := l.netConfine(sp.Sandbox.FS)
	if err != nil {
		return &startError{msg: "cannot start the egress proxy: " + err.Error(), sandbox: true}
	}
	l.policy = pol
	spec.Env = append(spec.Env, proxyEnv...)
	path, argv, group, rs, err := confine(sp.SessionID, sp.Sandbox, pol, prog, args)
	if err != nil {
		return &startError{msg: "cannot set up resource limits or the file confinement: " + err.Error(), sandbox: true}
	}
	if rs != nil {
		spec.Confine = rs.RestrictThread
		defer rs.Close()
	}
	// The keeper is up before the program: whatever the program starts has
	// one, however soon the supervisor dies.
	if l.keeper == nil {
		l.keeper, l.s.Keeper = l.s.Keeper, nil
		if l.keeper == nil && l.s.Exe != "" {
			l.keeper = StartKeeper(l.s.Exe, getenvOf(l.s.BaseEnv))
		}
		if l.keeper != nil {
			l.keeper.Tag(csaenv.SessionID + "=" + sp.SessionID)
		}
	}
	if l.keeper != nil && group != nil {
		for _, f := range group.Procs {
			l.keeper.Cgroup(f)
		}
	}
	spec.Path, spec.Args = path, argv
	p, err := proc.Start(spec)
	if err != nil {
		measure(group, nil, nil)
		return &startError{msg: err.Error()}
	}
	l.p, l.group, l.started = p, group, time.Now()
	if l.keeper != nil {
		l.keeper.Group(p.PGID())
	}
	return nil
}

// announce records the program's start as an event (fields added) and
// starts sampling its memory.
func (l *life) announce(prog string, fields map[string]any) {
	sp, p := l.run.Spec, l.p
	data := map[string]any{"pid": p.Pid, "pgid": p.PGID(), "program": prog, "sandbox": sp.Sandbox.Plan.Layer}
	for k, v := range fields {
		data[k] = v
	}
	l.ev.Emit(events.ProcessStarted, data)
	if iv := sp.Sandbox.SampleInterval; iv > 0 {
		l.sampler = resource.StartSampler(p.Pid, iv)
	}
}

// running records the started program's session running; record adds
// what the caller knows. On failure the program is stopped.
func (l *life) running(record func(*session.State)) error {
	p := l.p
	if _, err := l.s.update(l.run, func(st *session.State) error {
		st.PID, st.PGID, st.SupervisorPID, st.StartedAt = p.Pid, p.PGID(), os.Getpid(), l.s.Now().UTC()
		// A resumed session starts its turn with a clean slate.
		st.EndedAt, st.ExitCode, st.Signal, st.Failure, st.Reason, st.Result = time.Time{}, nil, "", nil, "", ""
		st.Turns++
		st.Confinement = l.policy
		if record != nil {
			record(st)
		}
		return st.Move(session.Running)
	}); err != nil {
		if fsutil.NoSpace(err) {
			l.noSpace(err) // watch stops the program, finish records why
			return nil
		}
		p.Terminate(l.run.Spec.Grace)
		return err
	}
	l.startRadar()
	return nil
}

// streams are the output pumps of a run, when it had any.
type streams struct {
	out, err *pump
}

// finish measures what the run used, decides its final status, writes
// its last events and then the state that ends it: a reader that sees the
// end in state.toml finds every event of the run in events.jsonl.
func (l *life) finish(ps *os.ProcessState, end *ending, out agents.Outcome, res *streams) (*session.State, error) {
	run, s := l.run, l.s
	id := run.Spec.SessionID
	// The leader's own peak counts even where its exit is not the run's
	// (an ACP agent csa stopped).
	rusage := ps
	if rusage == nil && l.p != nil {
		select {
		case <-l.p.Done():
			rusage = l.p.Wait()
		default:
		}
	}
	l.radar.end()
	denied := l.closeEgress()
	used := measure(l.group, l.sampler, rusage)
	l.group, l.sampler = nil, nil
	now := s.Now().UTC()
	verdict := func(st *session.State) session.Status {
		st.EndedAt = now
		st.AgentRetries = l.retries.total
		st.Result = strings.ToValidUTF8(out.Result, "\uFFFD")
		if out.ProviderSessionID != "" {
			st.ProviderSessionID = out.ProviderSessionID
		}
		if out.Usage != nil {
			st.Usage = out.Usage
		}
		if out.Model != "" {
			st.ProviderModel = out.Model
		}
		if res != nil && res.out != nil {
			st.OutputBytes = res.out.total
			st.OutputTruncated = res.out.truncated || res.err.truncated
		}
		status, fail := s.classify(id, ps, end, out)
		if oom := used.record(st, run.Spec.Sandbox.Plan, ps, s.stderrHead(id)+s.stderrTail(id)); oom != nil && end == nil {
			status, fail = session.Failed, oom
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
				st.Signal = interrupt.Name(ws.Signal())
				code = 128 + int(ws.Signal())
			}
			st.ExitCode = &code
		}
		return status
	}
	if l.p != nil {
		preview := *run.State
		preview.Status = verdict(&preview)
		l.afterRun(preview, ps)
	}
	ws := l.recordWorkspace()
	st, err := s.update(run, func(st *session.State) error {
		if err := st.Move(verdict(st)); err != nil {
			return err
		}
		if ws != nil {
			st.Workspace = ws
		}
		if denied > 0 && st.Confinement != nil {
			c := *st.Confinement
			c.Denied = denied
			st.Confinement = &c
		}
		l.lastEvents(st)
		return nil
	})
	if err != nil {
		l.unrecorded(end, err)
		return nil, err
	}
	return st, nil
}

// lastEvents writes the events that close a run, before its final state.
func (l *life) lastEvents(st *session.State) {
	if st.PidsLimitHit {
		l.ev.Emit(events.Warning, map[string]any{"message": fmt.Sprintf("the run reached its pids limit (%d): forks were refused", st.PidsLimit)})
	}
	if path := l.run.Spec.Sandbox.StatsPath; path != "" && st.PeakMemoryMB > 0 {
		if warn, err := resource.OpenStats(path).Record(st.Tool, st.PeakMemoryMB); warn != "" || err != nil {
			l.ev.Emit(events.Warning, map[string]any{"message": fmt.Sprintf("usage statistics: %s %v", warn, err)})
		}
	}
	l.ev.Emit(events.SessionEnded, map[string]any{"state": st.Status, "exit_code": st.ExitCode, "reason": st.Reason})
}

// classify decides the final status of a turn.
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
		msg := fmt.Sprintf("program killed by %s", interrupt.Name(ws.Signal()))
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
