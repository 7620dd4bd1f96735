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
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/transport"
	"github.com/csa-dev/csa/internal/transport/acp"
)

// ACPSpec runs the tool's Agent Client Protocol agent instead of its CLI.
// The CLI invocation of the Spec stays the fallback while the connection
// is set up; once the prompt is sent there is no fallback.
type ACPSpec struct {
	Program  string   `json:"program"`
	Args     []string `json:"args,omitempty"`
	Prompt   string   `json:"prompt"`
	Yolo     bool     `json:"yolo"`
	ResumeID string   `json:"resume_id,omitempty"`
	// MCP are the MCP servers given to the session.
	MCP []agents.MCPServer `json:"mcp,omitempty"`
}

// EvPromptSent marks the moment the prompt goes to an ACP agent, once the
// connection is set up (the benchmark of csa's start-up measures to it).
const EvPromptSent = "prompt.sent"

// acpSpec is the ACP part of a run's spec, nil for a CLI run.
func acpSpec(req Request, resume string) *ACPSpec {
	if req.ACPProgram == "" {
		return nil
	}
	return &ACPSpec{Program: req.ACPProgram, Args: req.ACPArgs, Prompt: req.Prompt, Yolo: req.Yolo, ResumeID: resume, MCP: req.mcpFor()}
}

// acpCancelWait is how long a cancelled turn may take to end by itself
// before the agent's group is stopped.
const acpCancelWait = 2 * time.Second

// superviseACP runs the session's ACP agent. handled is false when the
// agent failed before the prompt was sent: a warning is recorded and the
// caller runs the CLI instead.
func (l *life) superviseACP(ctx context.Context, outLog, errLog io.Writer) (st *session.State, handled bool, err error) {
	s, sp := l.s, l.run.Spec
	id := sp.SessionID
	var pipes [6]*os.File // stdin r/w, stdout r/w, stderr r/w
	for i := 0; i < len(pipes); i += 2 {
		if pipes[i], pipes[i+1], err = os.Pipe(); err != nil {
			for _, f := range pipes {
				if f != nil {
					f.Close()
				}
			}
			return nil, true, err
		}
	}
	rIn, wIn, rOut, wOut, rErr, wErr := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5]
	// The agent is recorded running once its connection is set up.
	err = l.start(ctx, proc.Spec{
		Dir: sp.Cwd, Env: ChildEnv(s.BaseEnv, l.run.State, s.Store.Dir(id), sp.Env),
		Stdin: rIn, Stdout: wOut, Stderr: wErr, DieWithParent: true,
	}, sp.ACP.Program, sp.ACP.Args)
	if err == nil {
		l.announce(sp.ACP.Program, map[string]any{"transport": transport.ACP})
	}
	rIn.Close()
	wOut.Close()
	wErr.Close()
	if err != nil {
		wIn.Close()
		rOut.Close()
		rErr.Close()
		var se *startError
		if !errors.As(err, &se) {
			return nil, true, err
		}
		if strings.HasPrefix(se.msg, "cannot set up resource limits") {
			st, err := l.finish(nil, &ending{session.Failed, session.FailStart, se.msg}, agents.Outcome{}, nil)
			return st, true, err
		}
		l.ev.Emit(events.Warning, map[string]any{"message": fmt.Sprintf("acp: %s; falling back to the CLI", se.msg), "transport": transport.CLI})
		return nil, false, nil
	}

	// The agent's stdout goes through a pump (lossless capped log, idle
	// clock) into the protocol connection.
	pr, pw := io.Pipe()
	outP := &pump{src: rOut, log: outLog, maxLog: sp.MaxLogBytes, touch: l.touch, failed: l.noSpace,
		lines: func(b []byte) { pw.Write(b) }}
	errP := &pump{src: rErr, log: errLog, live: s.Stderr, maxLog: sp.MaxLogBytes, touch: l.touch, failed: l.noSpace}
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
		Cwd: sp.Cwd, Yolo: sp.ACP.Yolo, ResumeID: sp.ACP.ResumeID, MCP: sp.ACP.MCP,
		Instructions: instructions(l.run.State),
		Emit:         func(typ string, data any) { l.ev.Emit(typ, data) },
		Text: func(t string) {
			if s.Stdout != nil && t != "" {
				showText(s.Stdout, agents.Text{Text: t, Delta: true})
				shown.Store(true)
				lastNL.Store(strings.HasSuffix(t, "\n"))
			}
		},
		Log: errLog,
	}, wIn, pr)

	// The protocol's calls end with the run, not with an interrupt: an
	// interrupt cancels the turn through the protocol first.
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	// stop ends the agent's whole group (it ignores stdin EOF) and waits
	// for its output to end.
	stop := func() {
		cancel()
		wIn.Close()
		endGroup(l.p, l.grace(), id)
		s.drain(l.p, sp.Grace, outDone, errDone, rOut, rErr)
		pr.CloseWithError(io.ErrClosedPipe)
	}
	setupDone := make(chan struct{})
	setupErr := make(chan error, 1)
	go func() { setupErr <- client.Setup(cctx); close(setupDone) }()

	end, exited := l.watch(ctx, watchOpts{done: setupDone})
	var failed error
	switch {
	case end != nil:
		l.ev.Emit(events.SignalSent, map[string]any{"signal": "SIGTERM", "reason": end.message, "during": "acp set-up"})
		stop()
		st, err := l.finish(nil, end, agents.Outcome{ProviderSessionID: client.SessionID()}, &streams{out: outP, err: errP})
		return st, true, err
	case exited:
		// Give the connection a moment to report the agent's own answer.
		failed = &acp.SetupError{Step: "start", Err: errors.New("the agent exited during set-up")}
		select {
		case <-setupDone:
			if err := <-setupErr; err != nil {
				failed = err
			}
		case <-time.After(200 * time.Millisecond):
		}
	default:
		failed = <-setupErr
	}
	if failed != nil {
		stop()
		measure(l.group, l.sampler, nil)
		l.group, l.sampler = nil, nil
		l.ev.Emit(events.Warning, map[string]any{
			"message":   fmt.Sprintf("%v; falling back to the CLI", failed),
			"transport": transport.CLI, "stderr": lastLine(s.stderrTail(id)),
		})
		return nil, false, nil
	}
	if err := l.running(func(st *session.State) { st.Program, st.Args = sp.ACP.Program, sp.ACP.Args }); err != nil {
		stop()
		return nil, true, err
	}

	promptDone := make(chan struct{})
	turns := make(chan acpTurn, 1)
	l.ev.Emit(EvPromptSent, map[string]any{"transport": transport.ACP, "session": client.SessionID()})
	go func() {
		res, err := client.Prompt(cctx, sp.ACP.Prompt)
		turns <- acpTurn{res, err}
		close(promptDone)
	}()
	var turn acpTurn
	end, exited = l.watch(ctx, watchOpts{done: promptDone})
	switch {
	case end != nil:
		turn = l.cancelTurn(ctx, client, end, promptDone, turns)
	case exited:
		select {
		case <-promptDone:
			turn = <-turns
		case <-time.After(500 * time.Millisecond):
			turn = acpTurn{err: errors.New("the ACP agent exited during the turn")}
		}
	default:
		turn = <-turns
	}
	stop()

	out := agents.Outcome{Result: turn.res.Text, ProviderSessionID: client.SessionID(), Usage: turn.res.Usage}
	if end == nil {
		if end = l.killedEarly(); end == nil {
			end = l.outcome(client, turn.res, turn.err)
		}
	}
	st, err = l.finish(nil, end, out, &streams{out: outP, err: errP})
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
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-deadline.C:
			_ = proc.SignalGroup(p.PGID(), syscall.SIGKILL)
			<-p.Done()
			return
		case <-tick.C:
		}
		select {
		case <-p.Done():
			if syscall.Kill(-p.PGID(), 0) != nil || len(proc.TaggedMembers(p.PGID(), EnvSessionID+"="+id)) == 0 {
				return
			}
		default:
		}
	}
}

// acpTurn is how a prompt's turn ended.
type acpTurn struct {
	res acp.Result
	err error
}

// cancelTurn sends session/cancel and gives the turn a moment to end by
// itself; the caller then ends the agent's whole group. A second interrupt
// skips the wait.
func (l *life) cancelTurn(ctx context.Context, client *acp.Client, end *ending, done <-chan struct{}, turns <-chan acpTurn) acpTurn {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), acpCancelWait)
	defer cancel()
	err := client.Cancel(cctx)
	l.ev.Emit(events.SignalSent, map[string]any{"signal": "session/cancel", "reason": end.message, "error": errString(err)})
	wait := time.NewTimer(acpCancelWait)
	defer wait.Stop()
	select {
	case <-done:
	case <-l.p.Done():
	case <-interrupt.Again(ctx):
	case <-wait.C:
	}
	l.ev.Emit(events.SignalSent, map[string]any{"signal": "SIGTERM", "reason": end.message, "grace_ms": l.grace().Milliseconds()})
	select {
	case <-done:
		return <-turns
	default:
		return acpTurn{}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// outcome classifies a turn that ended without csa stopping it.
func (l *life) outcome(client *acp.Client, res acp.Result, err error) *ending {
	s, id := l.s, l.run.Spec.SessionID
	if err != nil {
		select {
		case <-client.Done():
			err = fmt.Errorf("the ACP agent's connection ended during the turn (%w)", err)
		default:
		}
		evidence := err.Error() + "\n" + s.stderrTail(id)
		f := agents.Classify(evidence, 1)
		msg := err.Error()
		if t := lastLine(s.stderrTail(id)); t != "" && f.Class == session.FailCrashed {
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
