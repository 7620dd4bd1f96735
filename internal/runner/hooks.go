package runner

import (
	"context"
	"os"
	"strconv"

	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/runhooks"
	"github.com/csa-dev/csa/internal/session"
)

// HookVars are the values a session gives its hooks.
func HookVars(store *session.Store, st *session.State) runhooks.Vars {
	v := runhooks.Vars{
		SessionID: st.ID, Tool: st.Tool, Model: st.Model, Status: string(st.Status),
		SessionDir: store.Dir(st.ID), ProjectRoot: st.ProjectRoot, Depth: strconv.Itoa(st.Depth), ParentID: st.ParentID,
	}
	if st.ExitCode != nil {
		v.ExitCode = strconv.Itoa(*st.ExitCode)
	}
	return v
}

// hookEnv is where a session's hooks run: in its working directory, with
// the environment its program gets (its genealogy: a csa run inside a hook
// is the session's child).
func (req Request) hookEnv(store *session.Store, st *session.State) runhooks.Env {
	return runhooks.Env{Base: ChildEnv(req.Environ, st, store.Dir(st.ID), req.ToolEnv), Dir: req.Cwd}
}

func (l *life) hookEnv() runhooks.Env {
	sp := l.run.Spec
	return runhooks.Env{Base: ChildEnv(l.s.BaseEnv, l.run.State, l.s.Store.Dir(sp.SessionID), sp.Env), Dir: sp.Cwd}
}

// recordHooks writes hook and guard outcomes as events of the session.
func (l *life) recordHooks(rs []runhooks.Result) {
	for _, r := range rs {
		typ := events.Hook
		if r.Event == "" {
			typ = events.PromptGuard
		}
		l.ev.Emit(typ, r)
	}
}

// preRun records what ran before the session's events were open, then
// fires the pre_run hooks. A failed pre_session or pre_run hook refuses
// the run: its ending, with no program started.
func (l *life) preRun(ctx context.Context) *ending {
	sp := l.run.Spec
	l.recordHooks(sp.Prelude)
	var pre []runhooks.Result
	for _, r := range sp.Prelude {
		if r.Event == runhooks.PreSession {
			pre = append(pre, r)
		}
	}
	if msg := runhooks.Refusal(pre); msg != "" {
		return &ending{session.Failed, session.FailRefused, msg}
	}
	if !sp.Hooks.Has(runhooks.PreRun) {
		return nil
	}
	interrupt.Ready(ctx) // an interrupt stops the hooks and is recorded
	rs := sp.Hooks.Fire(ctx, runhooks.PreRun, HookVars(l.s.Store, l.run.State), l.hookEnv())
	l.recordHooks(rs)
	if ctx.Err() != nil {
		return &ending{session.Killed, session.FailInterrupted, context.Cause(ctx).Error()}
	}
	if msg := runhooks.Refusal(rs); msg != "" {
		return &ending{session.Failed, session.FailRefused, msg}
	}
	return nil
}

// afterRun fires the post_run hooks, and the session_complete ones when
// the run completed, once its program has ended and before its end is
// recorded: whoever sees the session ended finds their events. They
// cannot change the run's result, and an interrupt of csa does not skip
// them (their timeouts bound them).
func (l *life) afterRun(st session.State, ps *os.ProcessState) {
	hs := l.run.Spec.Hooks
	if l.p == nil || !hs.Has(runhooks.PostRun) && !hs.Has(runhooks.SessionComplete) {
		return
	}
	v := HookVars(l.s.Store, &st)
	if ps != nil {
		v.ExitCode = strconv.Itoa(ps.ExitCode())
	}
	env := l.hookEnv()
	l.recordHooks(hs.Fire(context.Background(), runhooks.PostRun, v, env))
	if st.Status == session.Completed {
		l.recordHooks(hs.Fire(context.Background(), runhooks.SessionComplete, v, env))
	}
}

// FailoverHooks fires the on_failover hooks of a tier leaving the session
// from (rate limited, run on the tier's spec fromModel) for toModel. The
// next attempt's session records their outcomes (Request.Inherited): from
// has ended, and its last event must stay its end.
func FailoverHooks(ctx context.Context, store *session.Store, hooks *runhooks.Set, environ []string, from *session.State, fromModel, toModel string) []runhooks.Result {
	if !hooks.Has(runhooks.OnFailover) {
		return nil
	}
	v := HookVars(store, from)
	v.FromModel, v.ToModel = fromModel, toModel
	env := runhooks.Env{Base: ChildEnv(environ, from, store.Dir(from.ID), nil), Dir: from.Cwd}
	return hooks.Fire(context.WithoutCancel(ctx), runhooks.OnFailover, v, env)
}
