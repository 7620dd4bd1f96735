package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Sibling finds program beside this process's own executable (make build
// and make install put csa's programs side by side, and the one built with
// this program wins), else on PATH.
func Sibling(program string) (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), program)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(program); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s is neither beside %s nor on PATH: it is built with csa (make build, make install)", program, filepath.Base(os.Args[0]))
}

// Program is one of csa's programs installed beside it (csa-cluster,
// csa-mcp, csa-ui). Its methods are the one way csa starts one: found as
// Sibling finds it, in its own process group, killed when its caller
// dies, stopped (SIGTERM, then SIGKILL) when the caller's context ends.
type Program string

// siblingGrace is how long a sibling program has between SIGTERM and
// SIGKILL when its caller's context ends.
const siblingGrace = 5 * time.Second

// Become replaces this process with the program run with args. It
// returns only when that cannot be done.
func (p Program) Become(args ...string) error {
	path, err := Sibling(string(p))
	if err != nil {
		return err
	}
	return Replace(path, append([]string{path}, args...), os.Environ())
}

// Call is one run of a sibling program: its arguments and streams. A
// nil Stderr is kept (its tail) for Ended: the program's error line.
type Call struct {
	Args []string
	// Env is the program's environment; nil for this process's.
	Env            []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Running is a started sibling program.
type Running struct {
	ctx  context.Context
	p    *Process
	tail *tailBuffer
	stop func() bool
}

// Ended is how a sibling program ended.
type Ended struct {
	// ExitCode is its exit status, -1 when a signal ended it.
	ExitCode int
	// Stderr is the tail of its standard error when the call did not
	// take it (Call.Stderr nil).
	Stderr string
}

// Start starts the program on c.
func (p Program) Start(ctx context.Context, c Call) (*Running, error) {
	path, err := Sibling(string(p))
	if err != nil {
		return nil, err
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	r := &Running{ctx: ctx, tail: &tailBuffer{max: MaxStderr}}
	spec := Spec{Path: path, Args: c.Args, Env: env, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, DieWithParent: true}
	if spec.Stderr == nil {
		spec.Stderr = r.tail
	}
	if r.p, err = Start(spec); err != nil {
		return nil, err
	}
	r.stop = context.AfterFunc(ctx, func() {
		select {
		case <-r.p.Done():
		default:
			r.p.Terminate(siblingGrace)
		}
	})
	return r, nil
}

// Wait waits for the program's end. When the caller's context ended
// first, the program was stopped and the context's cause is returned
// with how it ended.
func (r *Running) Wait() (*Ended, error) {
	st := r.p.Wait()
	e := &Ended{ExitCode: st.ExitCode(), Stderr: r.tail.String()}
	if !r.stop() && r.ctx.Err() != nil {
		return e, context.Cause(r.ctx)
	}
	return e, nil
}

// Run runs the program on c to its end.
func (p Program) Run(ctx context.Context, c Call) (*Ended, error) {
	r, err := p.Start(ctx, c)
	if err != nil {
		return nil, err
	}
	return r.Wait()
}
