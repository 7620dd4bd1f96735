package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/runner"
)

// resourceFlags are the per-run overrides of [resources].
type resourceFlags struct {
	memoryMaxMB, swapMaxMB, pidsMax int64
	enforcement, sandbox            string
	noPreflight, wait               bool
	set                             map[string]bool
}

// guard decides the sandbox plan, takes a concurrency slot and checks that
// the machine has the memory the tool is expected to need: all refusals
// before anything starts (exit 3).
func (o *Options) guard(cfg *config.Config, tool string, req *runner.Request) error {
	lim := cfg.ToolLimits(tool)
	rf := &o.res
	if rf.set["memory-max-mb"] {
		lim.MemoryMaxMB = rf.memoryMaxMB
	}
	if rf.set["memory-swap-max-mb"] {
		lim.MemorySwapMaxMB = rf.swapMaxMB
	}
	if rf.set["pids-max"] {
		lim.PidsMax = rf.pidsMax
	}
	if rf.enforcement != "" {
		mode, err := resource.ParseMode(rf.enforcement)
		if err != nil {
			return cmdutil.Usagef("--enforcement: %v", err)
		}
		lim.EnforcementMode = mode
	}
	if rf.sandbox != "" {
		layer, err := resource.ParseLayer(rf.sandbox)
		if err != nil {
			return cmdutil.Usagef("--sandbox: %v", err)
		}
		lim.Sandbox = layer
	}
	if lim.MemoryMaxMB < 0 || lim.MemorySwapMaxMB < 0 || lim.PidsMax < 0 {
		return cmdutil.Usagef("resource limits cannot be negative")
	}
	limits := resource.Limits{MemoryMaxMB: lim.MemoryMaxMB, MemorySwapMaxMB: lim.MemorySwapMaxMB, PidsMax: lim.PidsMax}
	caps := o.F.Capabilities()
	plan, err := resource.Decide(caps, lim.EnforcementMode, lim.Sandbox, limits)
	if err != nil {
		return cmdutil.Refused("sandbox_unavailable", err)
	}
	if plan.Warning != "" {
		o.warnOnce(plan.Warning)
	}
	exe, _ := o.F.Executable()
	req.Sandbox = runner.Sandbox{Plan: plan, Caps: caps, CsaExe: exe, SampleInterval: lim.SampleInterval.Std(),
		StatsPath: filepath.Join(filepath.Dir(o.storeRoot), "usage_stats.toml")}

	if max := cfg.Tool(tool).MaxConcurrent; max > 0 {
		slots := resource.NewSlots(filepath.Join(o.F.StateDir(), "slots"))
		if rf.wait {
			req.Slot, err = slots.Acquire(context.Background(), tool, max)
		} else {
			req.Slot, err = slots.TryAcquire(tool, max)
		}
		if err != nil {
			if errors.Is(err, resource.ErrNoSlots) {
				return cmdutil.Refused("no_slots", fmt.Errorf("%w (use --wait to queue for one)", err))
			}
			return err
		}
	}
	if !rf.noPreflight {
		if err := preflight(tool, lim, req.Sandbox.StatsPath); err != nil {
			if req.Slot != nil {
				req.Slot.Release()
				req.Slot = nil
			}
			return err
		}
	}
	return nil
}

func preflight(tool string, lim config.ResourcesConfig, statsPath string) error {
	mi, err := resource.ReadMemInfo("/proc/meminfo")
	if err != nil {
		return nil // nothing to check against: not a reason to refuse
	}
	hist, _, _ := resource.OpenStats(statsPath).History(tool)
	est := resource.EstimateFor(tool, hist, lim.InitialEstimates)
	if err := resource.Preflight(tool, lim.MinFreeMemoryMB, est, mi); err != nil {
		return cmdutil.Refused("insufficient_memory", err)
	}
	return nil
}

// warnOnce prints a degraded-sandbox warning the first time it occurs on
// this machine, not on every run.
func (o *Options) warnOnce(msg string) {
	marker := filepath.Join(o.F.StateDir(), "sandbox-warning")
	if b, err := os.ReadFile(marker); err == nil && string(b) == msg {
		return
	}
	fmt.Fprintln(o.F.IO.ErrOut, "csa: warning: "+msg)
	fsutil.MkdirPrivate(o.F.StateDir())
	fsutil.WriteFileReplace(marker, []byte(msg))
}
