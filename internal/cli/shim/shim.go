// Package shim implements the hidden `csa __exec`: the last step before an
// agent program runs under resource limits and its file confinement. It
// writes its own pid into the run's cgroup files, sets RLIMIT_AS and
// applies the Landlock policy, then replaces itself with the program
// (execve), so no code of the program runs unconfined.
package shim

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/resource"
	"github.com/csa-dev/csa/internal/sandbox"
)

// NewCmd builds the hidden command. It parses its own arguments: they end
// with the program's, which must reach it untouched.
func NewCmd() *cobra.Command {
	return &cobra.Command{
		Use:                resource.ShimCommand + " [--procs FILE]... [--rlimit-as BYTES] [--deny-read PATH]... [--write PATH]... [--confine-fs] [--connect-port PORT]... [--confine-net] -- PROGRAM [ARGS...]",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			os.Exit(Main(args))
			return nil
		},
	}
}

// Main runs the shim; it returns only on failure (exit 127: the program
// was not started).
func Main(args []string) int {
	fmt.Fprintln(os.Stderr, "csa "+resource.ShimCommand+":", Exec(args))
	return 127
}

// Exec confines this process as args say and replaces it with the
// program; it returns only on failure. Programs other than csa that start
// processes through resource.Wrap (csa-mcp) call it for their own
// resource.ShimCommand.
func Exec(args []string) error {
	pid := []byte(strconv.Itoa(os.Getpid()))
	var confine sandbox.ShimPolicy
	for len(args) > 0 && args[0] != "--" {
		if !sandbox.TakesValue(args[0]) {
			confine.Option(args[0], "")
			args = args[1:]
			continue
		}
		if len(args) < 2 {
			return fmt.Errorf("%s needs a value", args[0])
		}
		if ok, err := confine.Option(args[0], args[1]); ok {
			if err != nil {
				return err
			}
			args = args[2:]
			continue
		}
		switch args[0] {
		case "--procs":
			if err := os.WriteFile(args[1], pid, 0); err != nil {
				return fmt.Errorf("join cgroup: %w", err)
			}
		case "--rlimit-as":
			n, err := strconv.ParseUint(args[1], 10, 64)
			if err != nil {
				return fmt.Errorf("--rlimit-as %q: %w", args[1], err)
			}
			if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
				return fmt.Errorf("set RLIMIT_AS: %w", err)
			}
		default:
			return fmt.Errorf("unknown option %s", args[0])
		}
		args = args[2:]
	}
	if len(args) < 2 {
		return fmt.Errorf("no program after --")
	}
	prog, err := exec.LookPath(args[1])
	if err != nil {
		return err
	}
	if err := confine.Apply(); err != nil {
		return err
	}
	return syscall.Exec(prog, args[1:], os.Environ())
}
