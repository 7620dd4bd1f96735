package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/transport"
	"github.com/csa-dev/csa/internal/transport/acp"
)

// acpCancelWait is how long a cancelled turn may take to end by itself
// before the agent's group is stopped.
const acpCancelWait = 2 * time.Second

// promptACP sends the prompt over c's connection and watches the turn to
// its end: end is why csa stopped it (after cancelling it through the
// protocol), nil when it ended by itself. There is no fallback from here.
func (l *life) promptACP(ctx context.Context, c *acpConn) (turn acpTurn, end *ending) {
	promptDone := make(chan struct{})
	turns := make(chan acpTurn, 1)
	l.ev.Emit(EvPromptSent, map[string]any{"transport": transport.ACP, "session": c.client.SessionID()})
	go func() {
		res, err := c.client.Prompt(c.ctx, l.run.Spec.ACP.Prompt)
		turns <- acpTurn{res, err}
		close(promptDone)
	}()
	end, exited := l.watch(ctx, watchOpts{done: promptDone})
	switch {
	case end != nil:
		return l.cancelTurn(ctx, c.client, end, promptDone, turns), end
	case exited:
		select {
		case <-promptDone:
			return <-turns, nil
		case <-time.After(500 * time.Millisecond):
			return acpTurn{err: errors.New("the ACP agent exited during the turn")}, nil
		}
	}
	return <-turns, nil
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
