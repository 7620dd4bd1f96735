package run

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/scheduler"
	"github.com/csa-dev/csa/internal/session"
)

// runTier runs the prompt on a tier: its models in rotation order, a
// transient 429 retried with backoff, then failover to the next model and
// the fallback tiers, rate-limited providers put on a cooldown that every
// csa process honours. The final session records the chain of attempts.
func (o *Options) runTier(cfg *config.Config, parent *runner.Parent, prompt, cwd, root string) error {
	switch {
	case o.Session != "":
		return cmdutil.Usagef("--tier and --session cannot be combined (a session keeps its tool)")
	case o.Tool != "":
		return cmdutil.Usagef("--tier chooses the tool: do not pass --tool")
	}
	if _, ok := cfg.Tiers[o.Tier]; !ok {
		return cmdutil.Usagef("unknown tier %q (configured: %s)", o.Tier, tierNames(cfg))
	}
	store, err := o.F.Store(root)
	if err != nil {
		return err
	}
	o.storeRoot = store.Root()
	sched := scheduler.New(o.F.StateDir(), o.F.Now)
	cooling, _ := sched.Cooldowns()
	userModel, userEffort := o.Model, o.Effort
	var chain []session.Attempt
	var last *session.State
	for _, name := range tierChain(cfg, o.Tier) {
		specs, err := sched.Order(name, cfg.Tiers[name], cfg.Aliases)
		if err != nil {
			return err
		}
		for _, sp := range specs {
			if until, ok := cooling[sp.ProviderKey()]; ok && !o.NoFailover {
				chain = append(chain, session.Attempt{Spec: sp.Raw, Class: "cooling_down",
					Message: fmt.Sprintf("%s is cooling down until %s", sp.ProviderKey(), until.Format(time.RFC3339))})
				continue
			}
			o.Tool, o.Model, o.Effort = sp.Tool, sp.ModelArg(), sp.Thinking
			if o.Model == "" {
				o.Model = userModel
			}
			if o.Effort == "" {
				o.Effort = userEffort
			}
			for attempt := 0; ; attempt++ {
				st, err := o.attempt(cfg, store, parent, prompt, cwd, root, name, chain)
				if err != nil {
					if code, _ := cmdutil.Classify(err); code == "tool_not_installed" || code == "tool_disabled" {
						chain = append(chain, session.Attempt{Spec: sp.Raw, Class: code, Message: err.Error()})
						break
					}
					return err
				}
				if st == nil { // detached: no failover
					return nil
				}
				last = st
				if o.NoFailover || !rateLimited(st) {
					return o.finishTier(store, st, chain)
				}
				chain = append(chain, session.Attempt{SessionID: st.ID, Spec: sp.Raw, Class: st.Failure.Class, Message: st.Failure.Message})
				wait, hinted := scheduler.RetryAfter(st.Failure.Message)
				// A 429 is transient when the provider does not ask for a
				// long wait: only then is the same model tried again.
				transient := st.Failure.Class == session.FailRateLimited && (!hinted || wait <= maxRetryWait)
				if transient && attempt < cfg.Failover.Retries {
					if d := cfg.Failover.Backoff.Std() << attempt; d > wait {
						wait = d
					}
					time.Sleep(wait)
					continue
				}
				if !hinted {
					wait = cfg.Failover.Cooldown.Std()
				}
				sched.Cooldown(sp.ProviderKey(), wait)
				break
			}
		}
	}
	if last == nil {
		return cmdutil.Refused("no_model_available", fmt.Errorf("tier %s: no model could be tried: %s", o.Tier, describe(chain)))
	}
	// The last attempt is the session itself, not a step before it.
	before := make([]session.Attempt, 0, len(chain))
	for _, a := range chain {
		if a.SessionID != last.ID {
			before = append(before, a)
		}
	}
	return o.finishTier(store, last, before)
}

// maxRetryWait is the longest "retry after" still worth waiting for on
// the same model; a longer one is a cooldown, and the run fails over.
const maxRetryWait = 5 * time.Second

// attempt runs one model of the tier, returning its final state (nil when
// it was detached).
func (o *Options) attempt(cfg *config.Config, store *session.Store, parent *runner.Parent, prompt, cwd, root, tier string, chain []session.Attempt) (*session.State, error) {
	req, err := o.request(cfg, parent, prompt, cwd, root)
	if err != nil {
		return nil, err
	}
	if err := o.guard(cfg, string(req.Tool), req); err != nil {
		return nil, err
	}
	req.Tier = tier
	r, err := runner.Prepare(store, *req, o.F.Now())
	if err != nil {
		if req.Slot != nil {
			req.Slot.Release()
		}
		return nil, err
	}
	if o.Detach {
		return nil, o.detach(store, r)
	}
	return o.supervise(store, r)
}

// finishTier records the attempts that failed over into the final session.
func (o *Options) finishTier(store *session.Store, st *session.State, chain []session.Attempt) error {
	if len(chain) > 0 {
		upd, err := store.Update(context.Background(), st.ID, func(s *session.State) error {
			s.FallbackChain = chain
			return nil
		})
		if err == nil {
			st = upd
		}
	}
	return o.finish(st)
}

func rateLimited(st *session.State) bool {
	return st.Status == session.Failed && st.Failure != nil &&
		(st.Failure.Class == session.FailRateLimited || st.Failure.Class == session.FailQuota)
}

// tierChain is the tier and its fallbacks, breadth first, each once.
func tierChain(cfg *config.Config, first string) []string {
	out := []string{first}
	seen := map[string]bool{first: true}
	for i := 0; i < len(out); i++ {
		for _, f := range cfg.Tiers[out[i]].Fallback {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

func tierNames(cfg *config.Config) string {
	var n []string
	for k := range cfg.Tiers {
		n = append(n, k)
	}
	sort.Strings(n)
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, ", ")
}

func describe(chain []session.Attempt) string {
	var s []string
	for _, a := range chain {
		s = append(s, a.Spec+": "+a.Message)
	}
	return strings.Join(s, "; ")
}
