package run

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/scheduler"
	"github.com/csa-dev/csa/internal/session"
)

// runTier runs the prompt on a tier (see scheduler.Failover). The final
// session records the chain of attempts that failed over before it.
func (j *job) runTier(ctx context.Context) error {
	o, cfg := j.o, j.cfg
	switch {
	case o.Session != "":
		return cmdutil.Usagef("--tier and --session cannot be combined (a session keeps its tool)")
	case o.Tool != "":
		return cmdutil.Usagef("--tier chooses the tool: do not pass --tool")
	}
	if _, ok := cfg.Tiers[o.Tier]; !ok {
		return cmdutil.Usagef("unknown tier %q (configured: %s)", o.Tier, tierNames(cfg.Tiers))
	}
	f := &scheduler.Failover{
		Sched: scheduler.New(j.f.StateDir(), j.f.Now), Tiers: cfg.Tiers, Aliases: cfg.Aliases,
		Policy: cfg.Failover, Off: o.NoFailover,
		Skip: func(err error) (string, bool) {
			code, _ := cmdutil.Classify(err)
			return code, code == "tool_not_installed" || code == "tool_disabled"
		},
		OnFailover: func(ctx context.Context, last *session.State, from, to scheduler.Spec) {
			j.failedOver = append(j.failedOver, runner.FailoverHooks(ctx, j.store, j.hooks, j.f.Environ(), last, from.Raw, to.Raw)...)
		},
	}
	out, err := f.Run(ctx, o.Tier, j.try)
	var none *scheduler.NoModelError
	switch {
	case errors.As(err, &none):
		return cmdutil.Refused("no_model_available", err)
	case err != nil:
		return err
	case out.Final == nil: // detached
		return nil
	}
	st := out.Final
	if len(out.Chain) > 0 {
		upd, err := j.store.Update(context.WithoutCancel(ctx), st.ID, func(s *session.State) error {
			s.FallbackChain = out.Chain
			return nil
		})
		if err == nil {
			st = upd
		}
	}
	return j.finish(st)
}

// try runs one model of the tier: the flags' model and effort when the
// spec names none.
func (j *job) try(ctx context.Context, tier string, sp scheduler.Spec) (*session.State, error) {
	c := choice{tool: sp.Tool, model: sp.ModelArg(), effort: sp.Thinking}
	if c.model == "" {
		c.model = j.o.Model
	}
	if c.effort == "" {
		c.effort = j.o.Effort
	}
	req, err := j.request(ctx, c)
	if err != nil {
		return nil, err
	}
	req.Tier = tier
	if !j.o.NoFailover {
		req.GiveUpAfterRetries = j.cfg.Failover.AgentRetries
	}
	if err := j.admit(ctx, req); err != nil {
		return nil, err
	}
	j.giveMCP(ctx, req)
	req.Inherited, j.failedOver = j.failedOver, nil
	r, err := j.prepare(ctx, req, "")
	if err != nil {
		return nil, err
	}
	if j.o.Detach {
		if err := j.detach(r); err != nil {
			return nil, err
		}
		return nil, scheduler.ErrDetached
	}
	return j.supervise(ctx, r)
}

func tierNames[T any](tiers map[string]T) string {
	var n []string
	for k := range tiers {
		n = append(n, k)
	}
	sort.Strings(n)
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, ", ")
}
