// Package shim implements the hidden `csa __exec`: the last step before an
// agent program runs under resource limits. It writes its own pid into the
// run's cgroup files and sets RLIMIT_AS, then replaces itself with the
// program (execve), so no code of the program runs unconfined.
package shim

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/resource"
)

// NewCmd builds the hidden command. It parses its own arguments: they end
// with the program's, which must reach it untouched.
func NewCmd() *cobra.Command {
	return &cobra.Command{
		Use:                resource.ShimCommand + " [--procs FILE]... [--rlimit-as BYTES] -- PROGRAM [ARGS...]",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			err := Exec(args)
			// Reached only on failure: the program was not started.
			fmt.Fprintln(os.Stderr, "csa __exec:", err)
			os.Exit(127)
			return nil
		},
	}
}

// Exec confines this process as args say and replaces it with the
// program; it returns only on failure. Programs other than csa that start
// processes through resource.Wrap (csa-mcp) call it for their own
// resource.ShimCommand.
func Exec(args []string) error {
	pid := []byte(strconv.Itoa(os.Getpid()))
	for len(args) > 0 && args[0] != "--" {
		if len(args) < 2 {
			return fmt.Errorf("%s needs a value", args[0])
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
	return syscall.Exec(prog, args[1:], os.Environ())
}
