// Package link is what csa knows of its MCP hub: where the hub's socket
// is, how to make sure a hub answers there (starting one, detached, if
// none does), and the stdio MCP server an agent program is given to reach
// it. The hub itself is csa-mcp; this package is linked into csa, so it
// speaks no MCP and links no HTTP: a unix socket dial is all it needs.
package link

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/rundir"
	"github.com/csa-dev/csa/internal/statedir"
)

// SocketName is the hub's socket in csa's private runtime directory.
const SocketName = "mcp-hub.sock"

// LogName is the hub's log (its own lines and its servers' stderr) in
// csa's state directory.
const LogName = "mcp-hub.log"

// StartTimeout bounds how long Ensure waits for a hub it started (or that
// another caller is starting) to answer.
const StartTimeout = 30 * time.Second

// maxLog is the size past which a starting hub's log is rotated to
// LogName.1, so that the log of a long-lived user does not grow forever.
const maxLog = 8 << 20

// Socket is the hub's socket: SocketName in the runtime directory named by
// getenv("XDG_RUNTIME_DIR") (created private if need be).
func Socket(getenv func(string) string) (string, error) {
	dir, err := rundir.Dir(getenv("XDG_RUNTIME_DIR"))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, SocketName), nil
}

// LogFile is the hub's log file.
func LogFile(getenv func(string) string) string {
	return filepath.Join(statedir.Dir(getenv), LogName)
}

// Answers reports whether something accepts connections on socket.
func Answers(socket string) bool {
	c, err := net.Dial("unix", socket)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Ensure makes sure a hub answers on socket. When one does it returns at
// once (one dial). Otherwise it starts `hubExe hub --socket SOCKET`,
// detached (its own session; it outlives the caller) with its output
// appended to LogFile, and waits until the socket answers. Callers racing
// here are serialised by a lock beside the socket, so they start one hub.
func Ensure(ctx context.Context, hubExe, socket string, getenv func(string) string) error {
	if Answers(socket) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	l := lock.New(socket + ".start")
	if err := l.LockTimeout(ctx, StartTimeout); err != nil {
		return fmt.Errorf("MCP hub: waiting for another csa to start it: %w", err)
	}
	defer l.Unlock()
	if Answers(socket) { // started by whoever held the lock
		return nil
	}
	logPath := LogFile(getenv)
	logw, from, err := openLog(logPath)
	if err != nil {
		return fmt.Errorf("MCP hub: log: %w", err)
	}
	p, err := proc.Start(proc.Spec{Path: hubExe, Args: []string{"hub", "--socket", socket},
		Env: hubEnv(os.Environ(), getenv), Dir: "/", Stdout: logw, Stderr: logw})
	logw.Close() // the hub has its own descriptor
	if err != nil {
		return fmt.Errorf("MCP hub: %w", err)
	}
	return waitAnswer(ctx, p, socket, logPath, from)
}

// waitAnswer waits for the hub just started to answer on socket, for it to
// exit or for ctx to end, whichever comes first.
func waitAnswer(ctx context.Context, p *proc.Process, socket, logPath string, from int64) error {
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if Answers(socket) {
			return nil
		}
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-p.Done():
			t.Stop()
			if Answers(socket) { // another hub won the socket; this one saw it and left
				return nil
			}
			return fmt.Errorf("MCP hub exited (%v) before listening on %s; its log is %s%s",
				p.Wait(), socket, logPath, logTail(logPath, from))
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("MCP hub (pid %d) not listening on %s after %v; its log is %s%s",
				p.Pid, socket, StartTimeout, logPath, logTail(logPath, from))
		}
	}
}

// openLog opens the log for appending, rotating it first when it has grown
// past maxLog; from is where this hub's lines start.
func openLog(path string) (f *os.File, from int64, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, 0, err
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLog {
		_ = os.Rename(path, path+".1")
	}
	f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// logTail is what the hub wrote since from (its last 2 KB), to show with
// an error.
func logTail(path string, from int64) string {
	b, err := os.ReadFile(path)
	if err != nil || int64(len(b)) <= from {
		return ""
	}
	b = b[from:]
	if len(b) > 2048 {
		b = b[len(b)-2048:]
	}
	return ":\n" + strings.TrimRight(string(b), "\n")
}

// runVars are the variables that tie a process to one csa run. The hub
// outlives the run that starts it and serves every run, so it must not
// carry them: a run's keeper sweeps what carries its tag, and a server
// the hub starts would take the run's genealogy for its own.
var runVars = csaenv.Run

// placeVars say where csa's files are; getenv's values win over environ's
// so that the hub looks where the caller does.
var placeVars = []string{"HOME", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME",
	csaenv.StateDir, csaenv.ConfigHome}

// hubEnv is the hub's environment: environ without the run's variables,
// with getenv's places.
func hubEnv(environ []string, getenv func(string) string) []string {
	drop := map[string]bool{}
	for _, k := range append(runVars, placeVars...) {
		drop[k] = true
	}
	var env []string
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			env = append(env, kv)
		}
	}
	for _, k := range placeVars {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Server is a stdio MCP server as agent programs are configured with one.
type Server struct {
	Name    string
	Command string
	Args    []string
}

// Bridge is the MCP server agent programs are given: `csa-mcp connect` to
// the hub on socket for the project root project, sharing the instances
// of project-scoped servers of the project scope ("": project's own). It
// starts the hub itself if none answers (the hub may have exited since
// the run began).
func Bridge(hubExe, socket, project, scope string) Server {
	args := []string{"connect", "--socket", socket, "--project", project}
	if scope != "" && scope != project {
		args = append(args, "--scope", scope)
	}
	return Server{Name: "csa", Command: hubExe, Args: args}
}
