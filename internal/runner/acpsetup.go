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
	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/transport"
	"github.com/csa-dev/csa/internal/transport/acp"
)

// acpConn is a started ACP agent: its output pumped into the protocol
// connection, the connection set up unless csa stopped the run first.
type acpConn struct {
	client *acp.Client
	// ctx is the protocol calls' context: it ends with the run, not with
	// an interrupt, which cancels the turn through the protocol first.
	ctx    context.Context
	cancel context.CancelFunc
	stdin  *os.File       // the agent's stdin, written by the client
	proto  *io.PipeReader // the agent's stdout as the client reads it
	outP   *pump
	errP   *pump
	// outDone and errDone close when the pumps have read all of rOut and
	// rErr.
	outDone, errDone chan struct{}
	rOut, rErr       *os.File
	// stopped is why csa stopped the run during set-up; nil when the
	// connection is set up and the prompt may be sent.
	stopped *ending
	// shown: streamed text was shown; lastNL: it ended a line.
	shown, lastNL atomic.Bool
}

// endLine ends the streamed text on a line of its own, once the turn is
// over.
func (c *acpConn) endLine(w io.Writer) {
	if c.shown.Load() && !c.lastNL.Load() && w != nil {
		io.WriteString(w, "\n")
	}
}

// setUpACP starts the session's ACP agent and sets up its connection
// (initialize, session/new or session/load), watching the run meanwhile.
// Its errors: a *fallbackError for an agent that could not be started or
// set up (the CLI may do better), a *startError for a sandbox that could
// not be set up (it would not), any other for csa's own failures. When
// csa stopped the run during set-up, the connection's stopped says why.
func (l *life) setUpACP(ctx context.Context, outLog, errLog io.Writer) (*acpConn, error) {
	s, sp := l.s, l.run.Spec
	c, err := l.startACP(ctx, outLog, errLog)
	if err != nil {
		return nil, err
	}
	setupDone := make(chan struct{})
	setupErr := make(chan error, 1)
	go func() { setupErr <- c.client.Setup(c.ctx); close(setupDone) }()

	end, exited := l.watch(ctx, watchOpts{done: setupDone})
	var failed error
	switch {
	case end != nil:
		l.ev.Emit(events.SignalSent, map[string]any{"signal": "SIGTERM", "reason": end.message, "during": "acp set-up"})
		c.stopped = end
		return c, nil
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
		l.stopACP(c)
		measure(l.group, l.sampler, nil)
		l.group, l.sampler = nil, nil
		return nil, &fallbackError{reason: failed.Error(), stderr: lastLine(s.stderrTail(sp.SessionID))}
	}
	if err := l.running(func(st *session.State) { st.Program, st.Args = sp.ACP.Program, sp.ACP.Args }); err != nil {
		l.stopACP(c)
		return nil, err
	}
	return c, nil
}

// startACP starts the agent (recorded running only once its connection
// is set up) with its output pumped: stdout into the protocol client.
func (l *life) startACP(ctx context.Context, outLog, errLog io.Writer) (*acpConn, error) {
	s, sp := l.s, l.run.Spec
	var pipes [6]*os.File // stdin r/w, stdout r/w, stderr r/w
	for i := 0; i < len(pipes); i += 2 {
		var err error
		if pipes[i], pipes[i+1], err = os.Pipe(); err != nil {
			for _, f := range pipes {
				if f != nil {
					f.Close()
				}
			}
			return nil, err
		}
	}
	rIn, wIn, rOut, wOut, rErr, wErr := pipes[0], pipes[1], pipes[2], pipes[3], pipes[4], pipes[5]
	err := l.start(ctx, proc.Spec{
		Dir: sp.Cwd, Env: ChildEnv(s.BaseEnv, l.run.State, s.Store.Dir(sp.SessionID), sp.Env),
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
		if errors.As(err, &se) && !se.sandbox {
			return nil, &fallbackError{reason: fmt.Sprintf("acp: %s", se.msg)}
		}
		return nil, err
	}

	pr, pw := io.Pipe()
	c := &acpConn{stdin: wIn, proto: pr, rOut: rOut, rErr: rErr, outDone: make(chan struct{}), errDone: make(chan struct{})}
	// The agent's stdout goes through a pump (lossless capped log, idle
	// clock) into the protocol connection.
	c.outP = &pump{src: rOut, log: outLog, maxLog: sp.MaxLogBytes, touch: l.touch, failed: l.noSpace,
		lines: func(b []byte) { pw.Write(b) }}
	c.errP = &pump{src: rErr, log: errLog, live: s.Stderr, maxLog: sp.MaxLogBytes, touch: l.touch, failed: l.noSpace}
	go func() { c.outP.run(c.outDone); pw.Close() }()
	go c.errP.run(c.errDone)

	c.ctx, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	c.client = acp.New(acp.Config{
		Cwd: sp.Cwd, Yolo: sp.ACP.Yolo, ResumeID: sp.ACP.ResumeID, MCP: sp.ACP.MCP,
		Instructions: instructions(l.run.State),
		Emit:         func(typ string, data any) { l.ev.Emit(typ, data) },
		Text: func(t string) {
			if s.Stdout != nil && t != "" {
				showText(s.Stdout, agents.Text{Text: t, Delta: true})
				c.shown.Store(true)
				c.lastNL.Store(strings.HasSuffix(t, "\n"))
			}
		},
		Log: errLog,
	}, wIn, pr)
	return c, nil
}

// stopACP ends the agent's whole group (it ignores stdin EOF) and waits
// for its output to end.
func (l *life) stopACP(c *acpConn) {
	c.cancel()
	c.stdin.Close()
	endGroup(l.p, l.grace(), l.run.Spec.SessionID)
	l.s.drain(l.p, l.run.Spec.Grace, c.outDone, c.errDone, c.rOut, c.rErr)
	c.proto.CloseWithError(io.ErrClosedPipe)
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
			if syscall.Kill(-p.PGID(), 0) != nil || len(proc.TaggedMembers(p.PGID(), csaenv.SessionID+"="+id)) == 0 {
				return
			}
		default:
		}
	}
}
