package run

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
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

// ask is what the run asks of the machine: [resources] with the tool's
// overrides and the flags applied.
func (j *job) ask(tool string) (resource.Ask, error) {
	lim := j.cfg.ToolLimits(tool)
	rf := &j.o.res
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
			return resource.Ask{}, cmdutil.Usagef("--enforcement: %v", err)
		}
		lim.EnforcementMode = mode
	}
	if rf.sandbox != "" {
		layer, err := resource.ParseLayer(rf.sandbox)
		if err != nil {
			return resource.Ask{}, cmdutil.Usagef("--sandbox: %v", err)
		}
		lim.Sandbox = layer
	}
	if lim.MemoryMaxMB < 0 || lim.MemorySwapMaxMB < 0 || lim.PidsMax < 0 {
		return resource.Ask{}, cmdutil.Usagef("resource limits cannot be negative")
	}
	a := resource.Ask{
		Tool: tool, Limits: resource.Limits{MemoryMaxMB: lim.MemoryMaxMB, MemorySwapMaxMB: lim.MemorySwapMaxMB, PidsMax: lim.PidsMax},
		Mode: lim.EnforcementMode, Layer: lim.Sandbox, Wait: rf.wait,
		Preflight: !rf.noPreflight, MinFreeMB: lim.MinFreeMemoryMB, InitialEstimates: lim.InitialEstimates,
		StatsPath: filepath.Join(filepath.Dir(j.store.Root()), "usage_stats.toml"),
	}
	// An interactive session is long-lived and mostly waits for input:
	// max_concurrent slots bound headless runs only.
	if !j.o.Interactive {
		a.MaxConcurrent = j.cfg.Tool(tool).MaxConcurrent
	}
	return a, nil
}

// admit asks the machine for req's run: its sandbox plan, its slot and
// the memory pre-flight; every refusal comes before anything starts
// (exit 3).
func (j *job) admit(ctx context.Context, req *runner.Request) error {
	a, err := j.ask(string(req.Tool))
	if err != nil {
		return err
	}
	fs, err := j.confine(req)
	if err != nil {
		return err
	}
	caps := j.f.Capabilities()
	adm, err := resource.Admit(ctx, caps, resource.NewSlots(filepath.Join(j.f.StateDir(), "slots")), a)
	var refused *resource.RefusedError
	var short *resource.PreflightError
	switch {
	case errors.Is(err, resource.ErrNothingToEnforce):
		return cmdutil.Refused("nothing_to_enforce", err)
	case errors.As(err, &refused):
		return cmdutil.Refused("sandbox_unavailable", err)
	case errors.Is(err, resource.ErrNoSlots):
		return cmdutil.Refused("no_slots", fmt.Errorf("%w (use --wait to queue for one)", err))
	case errors.As(err, &short):
		return cmdutil.Refused("insufficient_memory", err)
	case err != nil:
		return err
	}
	if w := adm.Plan.Warning; w != "" && resource.FirstWarning(filepath.Join(j.f.StateDir(), "sandbox-warning"), w) {
		fmt.Fprintln(j.f.IO.ErrOut, "csa: warning: "+w)
	}
	exe, _ := j.f.Executable()
	req.Sandbox = runner.Sandbox{Plan: adm.Plan, Caps: caps, CsaExe: exe, SampleInterval: j.cfg.Resources.SampleInterval.Std(),
		StatsPath: a.StatsPath}
	req.Sandbox.FS = fs
	req.Slot = adm.Slot
	return nil
}
