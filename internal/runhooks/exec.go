package runhooks

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// outcome is how one command ended.
type outcome struct {
	output   []byte // its standard output and error, interleaved, up to the limit
	cut      bool   // it wrote more than the limit
	exitCode int    // -1 when a signal ended it or it did not start
	timedOut bool
	err      string // it could not start
	dur      time.Duration
}

func (o outcome) ok() bool { return o.err == "" && !o.timedOut && o.exitCode == 0 }

// runCommand runs cmd with /bin/sh -c in its own process group, in dir,
// keeping the first limit bytes of its output. At timeout, or when ctx
// ends, the group is stopped (SIGTERM, SIGKILL after a grace); whatever
// the command left running in its group is killed when it exits.
func runCommand(ctx context.Context, cmd string, env []string, dir string, timeout time.Duration, limit int) outcome {
	start := time.Now()
	o := outcome{exitCode: -1}
	r, w, err := os.Pipe()
	if err != nil {
		o.err = err.Error()
		return o
	}
	p, err := proc.Start(proc.Spec{Path: "/bin/sh", Args: []string{"-c", cmd}, Env: env, Dir: dir,
		Stdout: w, Stderr: w, DieWithParent: true})
	w.Close()
	if err != nil {
		r.Close()
		o.err, o.dur = err.Error(), time.Since(start)
		return o
	}
	h := &head{max: limit}
	copied := make(chan struct{})
	go func() {
		io.Copy(h, r)
		close(copied)
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-p.Done():
	case <-t.C:
		o.timedOut = true
		p.Terminate(killGrace)
	case <-ctx.Done():
		p.Terminate(killGrace)
	}
	ps := p.Wait()
	proc.SignalGroup(p.PGID(), syscall.SIGKILL) // a hook leaves nothing behind
	select {
	case <-copied:
	case <-time.After(time.Second): // held open outside the group
		r.Close()
		<-copied
	}
	r.Close()
	o.dur = time.Since(start)
	o.output, o.cut = h.bytes()
	if ps != nil && !o.timedOut {
		o.exitCode = ps.ExitCode()
	}
	if ctx.Err() != nil && o.exitCode != 0 && o.err == "" {
		o.err = fmt.Sprintf("stopped: %v", context.Cause(ctx))
	}
	return o
}

// head keeps the first max bytes written to it and drains the rest.
type head struct {
	mu  sync.Mutex
	max int
	b   []byte
	cut bool
}

func (h *head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	room := h.max - len(h.b)
	if len(p) > room {
		h.cut = true
		if room > 0 {
			h.b = append(h.b, p[:room]...)
		}
	} else {
		h.b = append(h.b, p...)
	}
	return len(p), nil
}

func (h *head) bytes() ([]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.b, h.cut
}
