package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// A hook may decide at run time to go on in the background: its first
// line of output is {"async": true} (with an optional asyncTimeout in
// milliseconds, 15 s by default), as Claude Code's hooks protocol has it.
// Published plugins' SessionStart hooks do this to install what they need
// without holding the session up.

// defaultAsyncTimeout is Claude Code's for a hook that went async
// without an asyncTimeout.
const defaultAsyncTimeout = 15 * time.Second

// asyncLine reads an {"async": true, "asyncTimeout": MS} line.
func asyncLine(line []byte) (time.Duration, bool) {
	var a struct {
		Async        *bool    `json:"async"`
		AsyncTimeout *float64 `json:"asyncTimeout"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &a) != nil || a.Async == nil || !*a.Async {
		return 0, false
	}
	if a.AsyncTimeout != nil && *a.AsyncTimeout > 0 {
		return time.Duration(*a.AsyncTimeout * float64(time.Millisecond)), true
	}
	return defaultAsyncTimeout, true
}

// detachedRun is a hook that went on in the background.
type detachedRun struct {
	p       *proc.Process
	out     *watchedOutput
	errTail *stderrTail
	timeout time.Duration
	cmd     Command
}

// continueAsync waits for a detached hook in the background as for an
// async one: killed at its timeout or when the session ends, what it
// says then reaching the model on a later turn.
func (e *Engine) continueAsync(event string, d *detachedRun) {
	e.bg.wg.Add(1)
	go func() {
		defer e.bg.wg.Done()
		timer := time.NewTimer(d.timeout)
		defer timer.Stop()
		r := run{cmd: d.cmd, timeout: d.timeout}
		select {
		case <-d.p.Done():
		case <-timer.C:
			r.err, r.timedOut = fmt.Errorf("timed out"), true
			d.p.Terminate(killGrace)
		case <-e.bg.ctx.Done():
			d.p.Terminate(killGrace)
			return
		}
		r.code = -1
		if ps := d.p.Wait(); ps != nil {
			r.code = ps.ExitCode()
		}
		r.stdout, r.stderr = d.out.Bytes(), d.errTail.String()
		e.asyncEnded(event, r)
	}()
}

// watchedOutput keeps a hook's standard output and hands its first line
// over as soon as it is written.
type watchedOutput struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	sent  bool
	first chan []byte // buffered: gets the first line once
}

func (w *watchedOutput) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.sent {
		if i := bytes.IndexByte(w.buf.Bytes(), '\n'); i >= 0 {
			w.sent = true
			w.first <- append([]byte(nil), w.buf.Bytes()[:i]...)
		}
	}
	return len(p), nil
}

// Bytes is all it has written.
func (w *watchedOutput) Bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]byte(nil), w.buf.Bytes()...)
}

// stderrTail keeps the last proc.MaxStderr bytes of standard error.
type stderrTail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - proc.MaxStderr; over > 0 {
		t.buf = append(t.buf[:0:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
