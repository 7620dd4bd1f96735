package proc

import (
	"bytes"
	"context"
	"os"
	"sync"
	"time"
)

// Captured is what a child run to its end produced.
type Captured struct {
	Stdout []byte
	// Stderr is the tail of its standard error (the last MaxStderr bytes).
	Stderr string
	// ExitCode is the exit status, -1 when a signal ended the child.
	ExitCode int
}

// MaxStderr bounds the standard error Capture keeps.
const MaxStderr = 64 * 1024

// Capture starts spec in its own process group, collects its standard
// output whole and the tail of its standard error (spec.Stdout and
// spec.Stderr are replaced), and waits for its end. When ctx ends first the
// group gets the two-phase stop (SIGTERM, SIGKILL after grace) and ctx's
// error is returned with whatever was captured.
func Capture(ctx context.Context, spec Spec, grace time.Duration) (*Captured, error) {
	var out bytes.Buffer
	errTail := &tailBuffer{max: MaxStderr}
	spec.Stdout, spec.Stderr = &out, errTail
	ps, err := Run(ctx, spec, grace)
	if ps == nil && err != nil && ctx.Err() == nil {
		return nil, err
	}
	c := &Captured{Stdout: out.Bytes(), Stderr: errTail.String(), ExitCode: -1}
	if ps != nil {
		c.ExitCode = ps.ExitCode()
	}
	return c, err
}

// Run starts spec in its own process group and waits for its end. When
// ctx ends first the group gets the two-phase stop (SIGTERM, SIGKILL after
// grace) and ctx's error is returned with the state it ended in.
func Run(ctx context.Context, spec Spec, grace time.Duration) (*os.ProcessState, error) {
	p, err := Start(spec)
	if err != nil {
		return nil, err
	}
	var ctxErr error
	select {
	case <-p.Done():
	case <-ctx.Done():
		ctxErr = context.Cause(ctx)
		p.Terminate(grace)
	}
	return p.Wait(), ctxErr
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
