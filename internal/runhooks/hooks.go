// Package runhooks runs the commands a user hangs around csa's runs: hooks
// at seven points of a run's life, and prompt guards whose output is added
// to a run's prompt. It decides what each fires with (variables, shell
// quoting, timeouts) and what its outcome means; the run lifecycle
// (internal/runner) decides when.
package runhooks

import (
	"time"

	"github.com/csa-dev/csa/internal/config"
)

// Event is a point of a run's life at which hooks fire.
type Event string

// The events, in the order they fire for one session.
const (
	// PreSession: once, when a session is created, before its first
	// prompt; its output is added to that prompt; failing refuses the run.
	PreSession Event = "pre_session"
	// PreRun: before each start of a program (each turn, each tier
	// attempt); failing refuses the run.
	PreRun Event = "pre_run"
	// PostRun: after each program run ended, before its end is recorded.
	PostRun Event = "post_run"
	// SessionComplete: after PostRun, when the run ended completed.
	SessionComplete Event = "session_complete"
	// OnFailover: when a tier moves from a rate-limited model to the next.
	OnFailover Event = "on_failover"
	// OnNeedsInput: when an interactive session starts needing input (its
	// agent finished a turn, or went quiet after answering); Vars.Reason
	// says why. Its outcome cannot change the session.
	OnNeedsInput Event = "on_needs_input"
	// OnOverlap: when a live worktree run starts changing files another
	// live run of its repository changes; once per pair and file, from
	// the supervisor that sees it first. Vars.OverlapWith and
	// Vars.OverlapPaths say with whom and which files.
	OnOverlap Event = "on_overlap"
)

// Events lists every event once.
var Events = []Event{PreSession, PreRun, PostRun, SessionComplete, OnFailover, OnNeedsInput, OnOverlap}

// Defaults of a hook or guard that does not set them.
const (
	DefaultTimeout    = 30 * time.Second
	DefaultGuardBytes = 16 << 10
	// outputHead is how much of a hook's output its event keeps.
	outputHead = 4 << 10
	// killGrace is the SIGTERM-to-SIGKILL grace of a timed-out command.
	killGrace = 2 * time.Second
)

// Hook is one command of an event.
type Hook struct {
	Command string        `json:"command"`
	Timeout time.Duration `json:"timeout"`
}

// Guard is one prompt guard.
type Guard struct {
	Command  string        `json:"command"`
	Timeout  time.Duration `json:"timeout"`
	MaxBytes int           `json:"max_bytes"`
}

// Set is what a run fires. It travels in the run's spec (run.json), so a
// detached supervisor runs exactly the hooks its parent loaded.
type Set struct {
	Hooks  map[Event][]Hook `json:"hooks,omitempty"`
	Guards []Guard          `json:"guards,omitempty"`
}

// FromConfig resolves loaded hooks with their defaults: noHooks drops the
// hooks, noGuards the guards (csa run --no-hooks, --no-guards). It is nil
// when nothing is left.
func FromConfig(h config.Hooks, noHooks, noGuards bool) *Set {
	s := &Set{}
	if !noHooks {
		for ev, hs := range map[Event][]config.HookConfig{
			PreSession: h.PreSession, PreRun: h.PreRun, PostRun: h.PostRun,
			SessionComplete: h.SessionComplete, OnFailover: h.OnFailover, OnNeedsInput: h.OnNeedsInput,
			OnOverlap: h.OnOverlap,
		} {
			for _, hc := range hs {
				if s.Hooks == nil {
					s.Hooks = map[Event][]Hook{}
				}
				s.Hooks[ev] = append(s.Hooks[ev], Hook{Command: hc.Command, Timeout: orDefault(hc.Timeout.Std(), DefaultTimeout)})
			}
		}
	}
	if !noGuards {
		for _, g := range h.PromptGuards {
			max := g.MaxBytes
			if max == 0 {
				max = DefaultGuardBytes
			}
			s.Guards = append(s.Guards, Guard{Command: g.Command, Timeout: orDefault(g.Timeout.Std(), DefaultTimeout), MaxBytes: max})
		}
	}
	if len(s.Hooks) == 0 && len(s.Guards) == 0 {
		return nil
	}
	return s
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Has tells whether any hook fires at ev.
func (s *Set) Has(ev Event) bool { return s != nil && len(s.Hooks[ev]) > 0 }

// Bound is the longest the hooks of ev can take together: each to its
// timeout and its kill grace.
func (s *Set) Bound(ev Event) time.Duration {
	var d time.Duration
	if s != nil {
		for _, h := range s.Hooks[ev] {
			d += h.Timeout + killGrace
		}
	}
	return d
}
