package resource

import (
	"context"
	"os"
	"path/filepath"

	"github.com/csa-dev/csa/internal/fsutil"
)

// Ask is what a run asks of this machine before it starts.
type Ask struct {
	Tool   string
	Limits Limits
	// Mode is the enforcement mode, Layer the preferred layer (Auto for
	// the best there is).
	Mode, Layer string
	// MaxConcurrent bounds the tool's runs on this machine (0: no bound);
	// Wait queues for a slot instead of refusing when all are taken.
	MaxConcurrent int
	Wait          bool
	// Preflight checks that MemAvailable+SwapFree covers MinFreeMB and
	// the tool's estimated need (its P95 from StatsPath, else
	// InitialEstimates).
	Preflight        bool
	MinFreeMB        int64
	InitialEstimates map[string]int64
	StatsPath        string
}

// Admission is what the machine grants a run: how its limits are
// enforced and, for a bounded tool, the concurrency slot it holds.
type Admission struct {
	Plan Plan
	Slot *Slot
}

// Admit decides a run's sandbox plan, takes its concurrency slot (waiting
// for one, first come first served, when asked) and checks that the
// machine has the memory the tool is expected to need. Its refusals are a
// *RefusedError (the limits cannot be enforced as required),
// ErrNothingToEnforce (Required without a limit), an error
// wrapping ErrNoSlots, a *PreflightError, or ctx's cause while waiting. On
// a refusal nothing is held.
func Admit(ctx context.Context, caps *Capabilities, slots *Slots, a Ask) (Admission, error) {
	plan, err := Decide(caps, a.Mode, a.Layer, a.Limits)
	if err != nil {
		return Admission{}, err
	}
	adm := Admission{Plan: plan}
	if a.MaxConcurrent > 0 {
		if a.Wait {
			adm.Slot, err = slots.Acquire(ctx, a.Tool, a.MaxConcurrent)
		} else {
			adm.Slot, err = slots.TryAcquire(a.Tool, a.MaxConcurrent)
		}
		if err != nil {
			if ctx.Err() != nil {
				return Admission{}, context.Cause(ctx)
			}
			return Admission{}, err
		}
	}
	if a.Preflight {
		if err := preflightAsk(a); err != nil {
			adm.Slot.Release()
			return Admission{}, err
		}
	}
	return adm, nil
}

func preflightAsk(a Ask) error {
	mi, err := ReadMemInfo("/proc/meminfo")
	if err != nil {
		return nil // nothing to check against: not a reason to refuse
	}
	hist, _, _ := OpenStats(a.StatsPath).History(a.Tool)
	return Preflight(a.Tool, a.MinFreeMB, EstimateFor(a.Tool, hist, a.InitialEstimates), mi)
}

// FirstWarning reports whether msg is new on this machine, remembering it
// in marker: a degraded sandbox is told once, not on every run.
func FirstWarning(marker, msg string) bool {
	if b, err := os.ReadFile(marker); err == nil && string(b) == msg {
		return false
	}
	fsutil.MkdirPrivate(filepath.Dir(marker))
	fsutil.WriteFileReplace(marker, []byte(msg))
	return true
}
