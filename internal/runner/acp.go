package runner

import (
	"context"
	"errors"
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
	"github.com/csa-dev/csa/internal/transport"
	"github.com/csa-dev/csa/internal/transport/acp"
)

// ACPSpec runs the tool's Agent Client Protocol agent instead of its CLI.
// The CLI invocation of the Spec stays the fallback while the connection
// is set up; once the prompt is sent there is no fallback.
type ACPSpec struct {
	Program  string `json:"program"`
	Prompt   string `json:"prompt"`
	Yolo     bool   `json:"yolo"`
	ResumeID string `json:"resume_id,omitempty"`
}

// EvPromptSent marks the moment the prompt goes to an ACP agent, once the
// connection is set up (the benchmark of csa's start-up measures to it).
const EvPromptSent = "prompt.sent"

// acpSpec is the ACP part of a run's spec, nil for a CLI run.
func acpSpec(req Request, resume string) *ACPSpec {
	if req.ACPProgram == "" {
		return nil
	}
	return &ACPSpec{Program: req.ACPProgram, Prompt: req.Prompt, Yolo: req.Yolo, ResumeID: resume}
}

// acpCancelWait is how long a cancelled turn may take to end by itself
// before the agent's group is stopped.
const acpCancelWait = 2 * time.Second

// superviseACP runs the session's ACP agent. handled is false when the
// agent failed before the prompt was sent: a warning is recorded and the
// caller runs the CLI instead.
func (s *Supervisor) superviseACP(run *Run, ev *events.Writer, outLog, errLog io.Writer) (st *session.State, handled bool, err error) {
	sp, id := run.Spec, run.Spec.SessionID
	acpSp := *sp
	acpSp.Program, acpSp.Args = sp.ACP.Program, nil
	prog, args, group, err := confine(&acpSp)
	if err != nil {
		st, err := s.finish(run, ev, nil, &ending{session.Failed, session.FailStart, "cannot set up resource limits: " + err.Error()}, agents.Outcome{}, nil)
		return st, true, err
	}
	var pipes [6]*os.File // stdin r/w, stdout r/w, stderr r/w
	for i := 0; i < len(pipes); i += 2 {
		if pipes[i], pipes[i+1], err = os.Pipe(); err != nil {
			for _, f := range pipes {
				if f != nil {
					f.Close()
				}
			}
			measure(group, nil, nil)
			return nil, true, err
		}
	}
	rIn, wIn, rOut, wOut, rErr, wErr := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5]
	p, startErr := proc.Start(proc.Spec{
		Path: prog, Args: args, Dir: sp.Cwd,
		Env:   childEnv(s.BaseEnv, run.State, s.Store.Dir(id), sp.Env),
		Stdin: rIn, Stdout: wOut, Stderr: wErr, DieWithParent: true,
	})
	rIn.Close()
	wOut.Close()
	wErr.Close()
	if startErr != nil {
		wIn.Close()
		rOut.Close()
		rErr.Close()
		measure(group, nil, nil)
		ev.Emit(events.Warning, map[string]any{"message": fmt.Sprintf("acp: %v; falling back to the CLI", startErr), "transport": transport.CLI})
		return nil, false, nil
	}
	ev.Emit(events.ProcessStarted, map[string]any{"pid": p.Pid, "pgid": p.PGID(), "program": sp.ACP.Program, "transport": transport.ACP, "sandbox": sp.Sandbox.Plan.Layer})
	var sampler *resource.Sampler
	if iv := sp.Sandbox.SampleInterval; iv > 0 {
		sampler = resource.StartSampler(p.Pid, iv)
	}

	// The agent's stdout goes through a pump (lossless capped log, idle
	// clock) into the protocol connection.
	var lastRead atomic.Int64
	lastRead.Store(time.Now().UnixNano())
	pr, pw := io.Pipe()
	outP := &pump{src: rOut, log: outLog, maxLog: sp.MaxLogBytes, lastRead: &lastRead,
		lines: func(b []byte) { pw.Write(b) }}
	errP := &pump{src: rErr, log: errLog, live: s.Stderr, maxLog: sp.MaxLogBytes, lastRead: &lastRead}
	outDone, errDone := make(chan struct{}), make(chan struct{})
	go func() { outP.run(outDone); pw.Close() }()
	go errP.run(errDone)

	// Streamed text ends on a line of its own once the turn is over.
	var shown, lastNL atomic.Bool
	defer func() {
		if shown.Load() && !lastNL.Load() && s.Stdout != nil {
			io.WriteString(s.Stdout, "\n")
		}
	}()
	client := acp.New(acp.Config{
		Cwd: sp.Cwd, Yolo: sp.ACP.Yolo, ResumeID: sp.ACP.ResumeID,
		Instructions: instructions(run.State),
		Emit:         func(typ string, data any) { ev.Emit(typ, data) },
		Text: func(t string) {
			if s.Stdout != nil && t != "" {
				showText(s.Stdout, agents.Text{Text: t, Delta: true})
				shown.Store(true)
				lastNL.Store(strings.HasSuffix(t, "\n"))
			}
		},
		Log: errLog,
	}, wIn, pr)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// stop ends the agent's whole group (it ignores stdin EOF) and waits
	// for its output to end.
	stop := func() {
		cancel()
		wIn.Close()
		endGroup(p, sp.Grace, id)
		s.drain(p, sp.Grace, outDone, errDone, rOut, rErr)
		pr.CloseWithError(io.ErrClosedPipe)
	}
	setupDone := make(chan error, 1)
	go func() { setupDone <- client.Setup(ctx) }()

	a := &acpRun{s: s, run: run, ev: ev, p: p, client: client, lastRead: &lastRead}
	end, setupErr := a.watchSetup(setupDone)
	if end == nil && setupErr != nil {
		stop()
		measure(group, sampler, nil)
		ev.Emit(events.Warning, map[string]any{
			"message":   fmt.Sprintf("%v; falling back to the CLI", setupErr),
			"transport": transport.CLI, "stderr": lastLine(s.stderrTail(id)),
		})
		return nil, false, nil
	}
	if end != nil {
		stop()
		used := measure(group, sampler, nil)
		st, err := s.finish(run, ev, nil, end, agents.Outcome{ProviderSessionID: client.SessionID()}, &streams{out: outP, err: errP, used: &used})
		return st, true, err
	}

	if _, err := s.update(run, func(st *session.State) error {
		st.PID, st.PGID, st.SupervisorPID, st.StartedAt = p.Pid, p.PGID(), os.Getpid(), s.Now().UTC()
		// A resumed session starts its turn with a clean slate.
		st.EndedAt, st.ExitCode, st.Signal, st.Failure, st.Reason, st.Result = time.Time{}, nil, "", nil, "", ""
		st.Program, st.Args = sp.ACP.Program, nil
		st.Turns++
		return st.Move(session.Running)
	}); err != nil {
		stop()
		measure(group, sampler, nil)
		return nil, true, err
	}

	promptDone := make(chan acpTurn, 1)
	ev.Emit(EvPromptSent, map[string]any{"transport": transport.ACP, "session": client.SessionID()})
	go func() {
		res, err := client.Prompt(ctx, sp.ACP.Prompt)
		promptDone <- acpTurn{res, err}
	}()
	end, t := a.watchTurn(promptDone)
	stop()
	used := measure(group, sampler, p.Wait())

	out := agents.Outcome{Result: t.res.Text, ProviderSessionID: client.SessionID(), Usage: t.res.Usage}
	if end == nil {
		if req := s.killRequested(id); req != "" {
			end = &ending{session.Killed, session.FailKilled, req}
		} else {
			end = a.outcome(t.res, t.err)
		}
	}
	st, err = s.finish(run, ev, nil, end, out, &streams{out: outP, err: errP, used: &used})
	return st, true, err
}

// endGroup ends an ACP agent, which does not exit on stdin EOF: SIGTERM to
// its whole group, then SIGKILL once grace has passed. Unlike
// proc.Terminate it waits for every member, not only the leader: Claude
// Code writes its transcript while it shuts down, after its parent is gone.
// Members are those carrying the session's id (zombies, whose parent is
// gone in a container without a reaper, do not count).
func endGroup(p *proc.Process, grace time.Duration, id string) {
	_ = proc.SignalGroup(p.PGID(), syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		select {
		case <-p.Done():
			if syscall.Kill(-p.PGID(), 0) != nil || len(proc.TaggedMembers(p.PGID(), EnvSessionID+"="+id)) == 0 {
				return
			}
		default:
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = proc.SignalGroup(p.PGID(), syscall.SIGKILL)
	<-p.Done()
}

// acpRun is one ACP run being watched.
type acpRun struct {
	s        *Supervisor
	run      *Run
	ev       *events.Writer
	p        *proc.Process
	client   *acp.Client
	lastRead *atomic.Int64
}

// acpTurn is how a prompt's turn ended.
type acpTurn struct {
	res acp.Result
	err error
}

// stopper merges csa's reasons to stop a run: signals, timeouts, a kill
// request (polled: csa kill signals the agent's group, not csa).
type stopper struct {
	a     *acpRun
	total *time.Timer
	idle  *time.Ticker
	poll  *time.Ticker
}

func (a *acpRun) newStopper() *stopper {
	sp := a.run.Spec
	st := &stopper{a: a, poll: time.NewTicker(100 * time.Millisecond)}
	if sp.Timeout > 0 {
		st.total = time.NewTimer(sp.Timeout)
	}
	if sp.IdleTimeout > 0 {
		st.idle = time.NewTicker(min(max(sp.IdleTimeout/10, 10*time.Millisecond), time.Second))
	}
	return st
}

func (st *stopper) stop() {
	st.poll.Stop()
	if st.idle != nil {
		st.idle.Stop()
	}
	if st.total != nil {
		st.total.Stop()
	}
}

func (st *stopper) totalC() <-chan time.Time {
	if st.total == nil {
		return nil
	}
	return st.total.C
}

func (st *stopper) idleC() <-chan time.Time {
	if st.idle == nil {
		return nil
	}
	return st.idle.C
}

// wait blocks until done yields, the agent exits, or a reason to stop
// fires; it returns the reason (nil for the other two) and which it was.
func (st *stopper) next(done <-chan struct{}) (*ending, bool) {
	a, sp := st.a, st.a.run.Spec
	for {
		select {
		case <-done:
			return nil, false
		case <-a.p.Done():
			return nil, true
		case sig := <-a.s.Signals:
			return &ending{session.Killed, session.FailInterrupted, fmt.Sprintf("interrupted by %s", sigName(sig))}, false
		case <-st.totalC():
			a.ev.Emit(events.TimeoutHit, map[string]any{"kind": "total", "timeout_ms": sp.Timeout.Milliseconds()})
			return &ending{session.TimedOut, session.FailTimeout, fmt.Sprintf("timed out after %s", sp.Timeout)}, false
		case <-st.idleC():
			if time.Since(time.Unix(0, a.lastRead.Load())) >= sp.IdleTimeout {
				a.ev.Emit(events.TimeoutHit, map[string]any{"kind": "idle", "timeout_ms": sp.IdleTimeout.Milliseconds()})
				return &ending{session.TimedOut, session.FailTimeout, fmt.Sprintf("no output for %s (idle timeout)", sp.IdleTimeout)}, false
			}
		case <-st.poll.C:
			if req := a.s.killRequested(sp.SessionID); req != "" {
				return &ending{session.Killed, session.FailKilled, req}, false
			}
		}
	}
}

// watchSetup waits for initialize and session/new; it returns the setup's
// error, or why csa stopped the run meanwhile.
func (a *acpRun) watchSetup(done <-chan error) (*ending, error) {
	st := a.newStopper()
	defer st.stop()
	var err error
	ready := make(chan struct{})
	go func() { err = <-done; close(ready) }()
	end, exited := st.next(ready)
	switch {
	case end != nil:
		a.ev.Emit(events.SignalSent, map[string]any{"signal": "SIGTERM", "reason": end.message, "during": "acp set-up"})
		return end, nil
	case exited:
		// Give the connection a moment to report the agent's own answer.
		select {
		case <-ready:
			if err != nil {
				return nil, err
			}
		case <-time.After(200 * time.Millisecond):
		}
		return nil, &acp.SetupError{Step: "start", Err: errors.New("the agent exited during set-up")}
	}
	return nil, err
}

// watchTurn waits for the prompt's turn to end. On a stop it sends
// session/cancel and gives the turn a moment to end by itself; the caller
// then ends the agent's whole group. A second signal skips the wait.
func (a *acpRun) watchTurn(done <-chan acpTurn) (*ending, acpTurn) {
	st := a.newStopper()
	defer st.stop()
	var t acpTurn
	ended := make(chan struct{})
	go func() { t = <-done; close(ended) }()
	end, exited := st.next(ended)
	switch {
	case end == nil && exited:
		select {
		case <-ended:
		case <-time.After(500 * time.Millisecond):
			return nil, acpTurn{err: errors.New("the ACP agent exited during the turn")}
		}
		return nil, t
	case end == nil:
		return nil, t
	}
	err := a.client.Cancel(context.Background())
	a.ev.Emit(events.SignalSent, map[string]any{"signal": "session/cancel", "reason": end.message, "error": errString(err)})
	wait := time.NewTimer(acpCancelWait)
	defer wait.Stop()
	select {
	case <-ended:
	case <-a.p.Done():
	case <-a.s.Signals:
	case <-wait.C:
	}
	a.ev.Emit(events.SignalSent, map[string]any{"signal": "SIGTERM", "reason": end.message, "grace_ms": a.run.Spec.Grace.Milliseconds()})
	select {
	case <-ended:
		return end, t
	default:
		return end, acpTurn{}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// outcome classifies a turn that ended without csa stopping it.
func (a *acpRun) outcome(res acp.Result, err error) *ending {
	id := a.run.Spec.SessionID
	if err != nil {
		select {
		case <-a.client.Done():
			err = fmt.Errorf("the ACP agent's connection ended during the turn (%w)", err)
		default:
		}
		evidence := err.Error() + "\n" + a.s.stderrTail(id)
		f := agents.Classify(evidence, 1)
		msg := err.Error()
		if t := lastLine(a.s.stderrTail(id)); t != "" && f.Class == session.FailCrashed {
			msg += ": " + t
		}
		return &ending{session.Failed, f.Class, msg}
	}
	switch res.StopReason {
	case "end_turn", "max_tokens", "max_turn_requests":
		if strings.TrimSpace(res.Text) == "" {
			msg := fmt.Sprintf("the turn ended (%s) without an answer", res.StopReason)
			if len(res.Denied) > 0 {
				msg += fmt.Sprintf(" after csa denied %d permission request(s) (no yolo): %s", len(res.Denied), strings.Join(res.Denied, "; "))
			}
			return &ending{session.Failed, session.FailNoResult, msg}
		}
		return &ending{status: session.Completed}
	case "cancelled":
		return &ending{session.Failed, session.FailInterrupted, "the agent cancelled the turn"}
	}
	return &ending{session.Failed, session.FailCrashed, fmt.Sprintf("the turn ended with stop reason %q", res.StopReason)}
}

// instructions is the context block csa hands an ACP agent at session/new.
func instructions(st *session.State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You run headless as a csa sub-agent (session %s, depth %d, tool %s).", st.ID, st.Depth, st.Tool)
	fmt.Fprintf(&b, " Work inside %s: file reads and writes outside it are refused.", st.Cwd)
	b.WriteString(" No human answers questions during this run.")
	return b.String()
}
