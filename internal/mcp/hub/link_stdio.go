package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/jsonrpc"
	"github.com/csa-dev/csa/internal/proc"
)

// stdioLink is a server process speaking newline-delimited JSON-RPC on
// its stdin and stdout.
type stdioLink struct {
	b     *backend
	c     *bconn
	p     *proc.Process
	out   *outbox
	in    *os.File // the server's stdin
	limit *limited // nil without memory or pids limits
}

// expand puts the project root of a project-scoped server's instance in
// place of {project} (config checks it is used only there), so that a
// stateful server keeps its state in the project: args = ["--db",
// "{project}/.mcp/db"].
func (b *backend) expand(s string) string {
	return strings.ReplaceAll(s, config.ProjectVar, b.project)
}

func (b *backend) args() []string {
	out := make([]string, len(b.cfg.Args))
	for i, a := range b.cfg.Args {
		out[i] = b.expand(a)
	}
	return out
}

// startProcess runs the server's command with its stdio on pipes. It goes
// through proc, so the server leads its own process group (killed whole
// when it dies) and dies with the hub; under memory_max_mb or pids_max it
// starts inside csa's resource layer (limits.go).
func (b *backend) startProcess(c *bconn) (*stdioLink, error) {
	prog, args, lim, err := b.confine()
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		lim.remove()
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		lim.remove()
		return nil, err
	}
	env := os.Environ()
	for k, v := range b.cfg.Env {
		env = append(env, k+"="+b.expand(v))
	}
	dir := b.expand(b.cfg.Cwd)
	if dir == "" {
		dir = b.project
	}
	p, err := proc.Start(proc.Spec{Path: prog, Args: args, Env: env, Dir: dir,
		Stdin: inR, Stdout: outW, Stderr: b.hub.logw, DieWithParent: true})
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		lim.remove()
		return nil, err
	}
	l := &stdioLink{b: b, c: c, p: p, out: newOutbox(inW), in: inW, limit: lim}
	read := make(chan struct{})
	go func() {
		l.read(outR)
		close(read)
	}()
	go func() {
		// The group dies with its leader, so that a grandchild holding
		// stdout cannot keep the hub from seeing the end.
		<-p.Done()
		_ = p.Signal(syscall.SIGKILL)
		l.out.close()
		<-l.out.done
		inW.Close()
		select {
		case <-read:
		case <-time.After(500 * time.Millisecond):
			outR.Close()
		}
	}()
	return l, nil
}

func (l *stdioLink) handshake(ctx context.Context) (json.RawMessage, error) {
	res, err := l.b.roundTrip(ctx, l.c, "initialize", initParams)
	if err != nil {
		return nil, err
	}
	l.send(notification("notifications/initialized", nil))
	return res, nil
}

func (l *stdioLink) send(m *msg) { l.out.send(m) }
func (l *stdioLink) pid() int    { return l.p.Pid }
func (l *stdioLink) kill()       { _ = l.p.Signal(syscall.SIGKILL) }

func (l *stdioLink) stop(grace time.Duration) {
	// Closing stdin is how a stdio server is asked to leave.
	l.out.close()
	select {
	case <-l.out.done:
		l.in.Close()
	case <-l.p.Done():
	case <-time.After(grace / 2):
	}
	select {
	case <-l.p.Done():
	case <-time.After(grace / 2):
		l.p.Terminate(grace / 2)
	}
}

// read routes what the process writes until it closes stdout, then
// reports the end with the reason the process died.
func (l *stdioLink) read(f *os.File) {
	b := l.b
	r := newReader(f)
	for {
		m, err := r.next()
		if err == errTooLong {
			fmt.Fprintf(b.hub.logw, "csa-mcp hub: %s: message over 64 MiB dropped\n", b.label())
			continue
		}
		if _, ok := err.(*jsonrpc.Error); ok {
			continue
		}
		if err != nil {
			break
		}
		b.handle(l.c, m)
	}
	f.Close()
	_ = l.p.Signal(syscall.SIGKILL)
	b.ended(l.c, l.why())
	l.limit.remove()
	close(l.c.gone) // the hub's shutdown waits for the group's removal
}

// why says how the process ended, once it has been reaped (it was just
// sent SIGKILL, so that is soon).
func (l *stdioLink) why() string {
	select {
	case <-l.p.Done():
	case <-time.After(time.Second):
		return "closed its output"
	}
	if s := l.limit.oom(l.p.Wait()); s != "" {
		return s
	}
	st := l.p.Wait()
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("exited, killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
	}
	return fmt.Sprintf("exited with status %d", st.ExitCode())
}
