package runner

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/session"
)

// grace is the time between SIGTERM and SIGKILL when csa stops the
// program: the one `csa kill` asked for, else the run's own; a run given
// up on gets at most abandonGrace.
func (l *life) grace() time.Duration {
	g := l.run.Spec.Grace
	if l.killGrace != nil {
		g = *l.killGrace
	}
	if l.abandoned {
		g = min(g, abandonGrace)
	}
	return g
}

// killPoll is how often a watched run looks for a `csa kill` request: the
// kill signals the program's group too, but the request is what says why,
// and it reaches an agent that left its group.
const killPoll = 200 * time.Millisecond

// watchOpts is what a caller of watch wants.
type watchOpts struct {
	// done ends the watch (the turn is over); nil to watch the program
	// until it exits.
	done <-chan struct{}
	// stop begins stopping the program at the first reason; nil returns
	// that reason at once, for the caller to act on.
	stop func(*ending)
	// kill, after stop, ends the program at once: a second interrupt.
	kill func()
	// tick is called every tickEvery (the pane wrapper's heartbeat).
	tick      func()
	tickEvery time.Duration
}

// watch waits until the program exits or o.done closes, and stops the
// program at the first reason csa has: an interrupt (ctx), the total or
// idle timeout, a `csa kill` request, the agent's own rate-limit retries,
// a full disk.
// It returns that reason (nil when the run ended by itself) and whether
// it returned because the program exited.
func (l *life) watch(ctx context.Context, o watchOpts) (*ending, bool) {
	sp := l.run.Spec
	var total <-chan time.Time
	if sp.Timeout > 0 {
		// From the program's start: an ACP run is watched twice (its
		// set-up, then its turn), under one total timeout.
		t := time.NewTimer(sp.Timeout - time.Since(l.started))
		defer t.Stop()
		total = t.C
	}
	var idle <-chan time.Time
	if sp.IdleTimeout > 0 {
		t := time.NewTicker(min(max(sp.IdleTimeout/10, 10*time.Millisecond), time.Second))
		defer t.Stop()
		idle = t.C
	}
	poll := time.NewTicker(killPoll)
	defer poll.Stop()
	var spend <-chan time.Time
	if l.budget != nil {
		t := time.NewTicker(budgetPoll)
		defer t.Stop()
		spend = t.C
	}
	var tick <-chan time.Time
	if o.tick != nil {
		t := time.NewTicker(o.tickEvery)
		defer t.Stop()
		tick = t.C
	}
	interrupted := ctx.Done()
	again := interrupt.Again(ctx)
	exited := l.p.Done()
	var end *ending
	for {
		var why *ending
		select {
		case <-o.done:
			return end, false
		case <-exited:
			return end, true
		case <-interrupted:
			interrupted = nil
			// csa kill of a pane wrapper signals the wrapper itself.
			if why = l.killedEarly(); why == nil {
				why = &ending{session.Killed, session.FailInterrupted, context.Cause(ctx).Error()}
			}
		case <-again:
			again = nil
			if end != nil && o.kill != nil {
				o.kill()
			}
		case <-total:
			l.ev.Emit(events.TimeoutHit, map[string]any{"kind": "total", "timeout_ms": sp.Timeout.Milliseconds()})
			why = &ending{session.TimedOut, session.FailTimeout, fmt.Sprintf("timed out after %s", sp.Timeout)}
		case <-idle:
			if time.Since(time.Unix(0, l.lastOutput.Load())) >= sp.IdleTimeout {
				idle = nil
				l.ev.Emit(events.TimeoutHit, map[string]any{"kind": "idle", "timeout_ms": sp.IdleTimeout.Milliseconds()})
				why = &ending{session.TimedOut, session.FailTimeout, fmt.Sprintf("no output for %s (idle timeout)", sp.IdleTimeout)}
			}
		case <-poll.C:
			if why = l.killedEarly(); why != nil {
				poll.Stop()
			}
		case <-spend:
			if why = l.budget.check(l.s.Store, sp.SessionID, sp.Tool); why != nil {
				spend = nil
				l.ev.Emit(events.BudgetHit, map[string]any{"max_cost_usd": sp.MaxCostUSD, "reason": why.message})
			}
		case e := <-l.giveUp:
			why, l.abandoned = e, true
		case e := <-l.full:
			why = e
		case <-tick:
			o.tick()
		}
		if why == nil || end != nil {
			continue
		}
		end = why
		if o.stop == nil {
			return end, false
		}
		l.ev.Emit(events.SignalSent, map[string]any{"signal": "SIGTERM", "reason": end.message, "grace_ms": l.grace().Milliseconds()})
		o.stop(end)
	}
}

// stopGroup is the usual stop: SIGTERM to the program's group, SIGKILL
// after the grace (in the background: watch goes on).
func (l *life) stopGroup(*ending) { go l.p.Terminate(l.grace()) }

// killGroup ends the program's group at once.
func (l *life) killGroup() { l.p.Signal(syscall.SIGKILL) }
