package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/session"
)

// Try runs a prompt on one model of a tier and returns the session's final
// state, or ErrDetached when the run was handed to a detached supervisor,
// which ends the tier's work (no failover).
type Try func(ctx context.Context, tier string, sp Spec) (*session.State, error)

// ErrDetached is the Try of a run handed to a detached supervisor.
var ErrDetached = errors.New("run detached")

// Failover runs a prompt on a tier: its models in rotation order, a
// transient 429 retried on the same model with backoff, then the next model
// and the fallback tiers, rate-limited providers put on a cooldown that
// every csa process honours.
type Failover struct {
	Sched   *Scheduler
	Tiers   map[string]config.TierConfig
	Aliases map[string]string
	Policy  config.FailoverConfig
	// Off runs only the first model there is, its failure as it is.
	Off bool
	// Skip tells an error of Try after which the tier goes on (a tool that
	// is not installed or is disabled), and its class.
	Skip func(error) (class string, ok bool)
	// OnFailover, when set, is told each move from a rate-limited session
	// (run on the spec from) to the next model tried (to), before it.
	OnFailover func(ctx context.Context, last *session.State, from, to Spec)
}

// Outcome is how a tier run ended: the session that answered (or the last
// one tried) and the attempts that failed over before it.
type Outcome struct {
	Final *session.State
	Chain []session.Attempt
}

// NoModelError says no model of the tier could even be tried.
type NoModelError struct {
	Tier  string
	Chain []session.Attempt
}

func (e *NoModelError) Error() string {
	var s []string
	for _, a := range e.Chain {
		s = append(s, a.Spec+": "+a.Message)
	}
	return fmt.Sprintf("tier %s: no model could be tried: %s", e.Tier, strings.Join(s, "; "))
}

// maxRetryWait is the longest "retry after" still worth waiting for on
// the same model; a longer one is a cooldown, and the run fails over.
const maxRetryWait = 5 * time.Second

// Run runs try over tier first and its fallbacks until a model answers
// something other than a rate limit. An interrupt (ctx) during a backoff
// ends it at once with ctx's cause, starting nothing more.
func (f *Failover) Run(ctx context.Context, first string, try Try) (*Outcome, error) {
	cooling, _ := f.Sched.Cooldowns()
	var chain []session.Attempt
	var last *session.State
	var lastSpec Spec
	for _, name := range f.chain(first) {
		specs, err := f.Sched.Order(name, f.Tiers[name], f.Aliases)
		if err != nil {
			return nil, err
		}
		for _, sp := range specs {
			if until, ok := cooling[sp.ProviderKey()]; ok && !f.Off {
				chain = append(chain, session.Attempt{Spec: sp.Raw, Class: "cooling_down",
					Message: fmt.Sprintf("%s is cooling down until %s", sp.ProviderKey(), until.Format(time.RFC3339))})
				continue
			}
			if last != nil && f.OnFailover != nil {
				f.OnFailover(ctx, last, lastSpec, sp)
			}
			st, err := f.model(ctx, name, sp, try, &chain)
			switch {
			case errors.Is(err, ErrDetached):
				return &Outcome{}, nil
			case err != nil:
				return nil, err
			case st == nil:
				continue // skipped
			}
			last, lastSpec = st, sp
			if f.Off || !limited(st) {
				return f.outcome(st, chain), nil
			}
		}
	}
	if last == nil {
		return nil, &NoModelError{Tier: first, Chain: chain}
	}
	return f.outcome(last, chain), nil
}

// model tries one model until it answers, is given up on, or is skipped;
// a rate-limited attempt is appended to chain. It returns nil for a
// skipped model.
func (f *Failover) model(ctx context.Context, tier string, sp Spec, try Try, chain *[]session.Attempt) (*session.State, error) {
	var st *session.State
	for attempt := 0; ; attempt++ {
		var err error
		st, err = try(ctx, tier, sp)
		if err != nil {
			if class, ok := f.Skip(err); ok {
				*chain = append(*chain, session.Attempt{Spec: sp.Raw, Class: class, Message: err.Error()})
				return nil, nil
			}
			return nil, err
		}
		if f.Off || !limited(st) {
			return st, nil
		}
		*chain = append(*chain, session.Attempt{SessionID: st.ID, Spec: sp.Raw, Class: st.Failure.Class, Message: st.Failure.Message})
		wait, hinted := RetryAfter(st.Failure.Message)
		// A 429 is transient when the provider does not ask for a long
		// wait: only then is the same model tried again, and never when
		// the agent program already retried it by itself.
		transient := st.Failure.Class == session.FailRateLimited && (!hinted || wait <= maxRetryWait) && st.AgentRetries == 0
		if transient && attempt < f.Policy.Retries {
			if d := f.Policy.Backoff.Std() << attempt; d > wait {
				wait = d
			}
			if err := interrupt.Pause(ctx, wait); err != nil {
				return nil, err
			}
			continue
		}
		if !hinted {
			wait = f.Policy.Cooldown.Std()
		}
		f.Sched.Cooldown(sp.ProviderKey(), wait)
		return st, nil
	}
}

// outcome takes the final session out of the chain: it is the session
// itself, not a step before it.
func (f *Failover) outcome(final *session.State, chain []session.Attempt) *Outcome {
	before := make([]session.Attempt, 0, len(chain))
	for _, a := range chain {
		if a.SessionID != final.ID {
			before = append(before, a)
		}
	}
	return &Outcome{Final: final, Chain: before}
}

// chain is the tier and its fallbacks, breadth first, each once.
func (f *Failover) chain(first string) []string {
	out := []string{first}
	seen := map[string]bool{first: true}
	for i := 0; i < len(out); i++ {
		for _, fb := range f.Tiers[out[i]].Fallback {
			if !seen[fb] {
				seen[fb] = true
				out = append(out, fb)
			}
		}
	}
	return out
}

func limited(st *session.State) bool {
	return st.Status == session.Failed && st.Failure != nil && session.RateLimited(st.Failure.Class)
}
