// Package proc is the only place csa starts processes. Every child gets its
// own process group so it can be signalled, and killed, as a whole.
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Spec describes a program to start.
type Spec struct {
	Path  string
	Args  []string // without argv[0]
	Env   []string
	Dir   string
	Stdin io.Reader
	// Stdout and Stderr receive the child's output. An *os.File is handed
	// to the child directly, with no copying goroutine.
	Stdout, Stderr io.Writer
	ExtraFiles     []*os.File
	// DieWithParent makes the kernel SIGKILL the child when the starting
	// process dies, so a SIGKILLed supervisor leaves no agent behind.
	DieWithParent bool
	// InTerminal keeps the child in the caller's session and process
	// group: it shares the caller's controlling terminal as its
	// foreground job (an interactive agent inside a tmux pane).
	InTerminal bool
	// Confine, when set, restricts the thread that starts the child, just
	// before: what a kernel holds per thread and a child inherits
	// (Landlock, no_new_privs) then holds the program from its first
	// instruction, with no program of csa's run in between.
	Confine func() error
}

// Process is a started child leading its own process group.
type Process struct {
	cmd  *exec.Cmd
	Pid  int
	done chan struct{}

	mu    sync.Mutex
	state *os.ProcessState
	err   error
}

// Start starts spec in a new session (setsid), hence a new process group
// whose id is the child's pid.
func Start(spec Spec) (*Process, error) {
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Env = spec.Env
	cmd.Dir = spec.Dir
	cmd.Stdin = spec.Stdin
	cmd.Stdout = spec.Stdout
	cmd.Stderr = spec.Stderr
	cmd.ExtraFiles = spec.ExtraFiles
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: !spec.InTerminal}
	if spec.DieWithParent {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	done := make(chan struct{})
	start := cmd.Start
	if spec.Confine != nil {
		start = func() error { return startConfined(cmd, spec.Confine, done) }
	}
	if err := start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Path, err)
	}
	p := &Process{cmd: cmd, Pid: cmd.Process.Pid, done: done}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.state, p.err = cmd.ProcessState, err
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// PGID is the child's process group id (its pid, see Start; the caller's
// group for an InTerminal child).
func (p *Process) PGID() int {
	if p.cmd.SysProcAttr.Setsid {
		return p.Pid
	}
	return syscall.Getpgrp()
}

// Done is closed when the child has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait blocks until the child exits and returns its state.
func (p *Process) Wait() *os.ProcessState {
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state
}

// Signal sends sig to the child's whole process group (to the child alone
// when it shares the caller's group).
func (p *Process) Signal(sig syscall.Signal) error {
	if !p.cmd.SysProcAttr.Setsid {
		return p.cmd.Process.Signal(sig)
	}
	return SignalGroup(p.Pid, sig)
}

// Terminate is the two-phase stop: SIGTERM to the group, then SIGKILL to
// the group if the leader has not exited within grace. Members that outlive
// their leader are killed too: a run leaves nothing behind.
func (p *Process) Terminate(grace time.Duration) (forced bool) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		forced = true
	}
	_ = p.Signal(syscall.SIGKILL)
	<-p.done
	return forced
}

// SignalGroup signals every process in group pgid. A group that is already
// gone is not an error.
func SignalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return fmt.Errorf("refusing to signal process group %d", pgid)
	}
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal group %d: %w", pgid, err)
	}
	return nil
}

// Output runs a short helper program (such as `prog --version`) in its own
// process group and returns its combined output; the group is killed when
// ctx ends.
func Output(ctx context.Context, path string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return SignalGroup(cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	return cmd.CombinedOutput()
}

// Exec replaces csa by path (for `csa attach`, which hands the terminal to
// tmux). It returns only on failure.
func Exec(path string, args []string, env []string) error {
	argv := append([]string{path}, args...)
	return fmt.Errorf("exec %s: %w", path, syscall.Exec(path, argv, env))
}

// Replace runs path in place of this process (execve): for a command that
// hands its standard streams to another program, as `csa mcp-server` does
// to csa-mcp. It returns only on failure.
func Replace(path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}
