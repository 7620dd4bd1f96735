// Package tmux drives a private tmux server (one socket per project) for
// interactive sessions: create a session running a command, record its pane,
// type into it, read the state of every pane at once, and end a session
// without ever killing a server that still serves others.
package tmux

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/proc"
	"github.com/csa-dev/csa/internal/rundir"
	"github.com/csa-dev/csa/internal/shellquote"
)

// Server is a tmux server reached through its socket.
type Server struct {
	Bin    string // the tmux program
	Socket string // absolute path of the server's socket
}

// cmdTimeout bounds every tmux call: a wedged server must not hang csa.
const cmdTimeout = 10 * time.Second

// Find locates the tmux program.
func Find() (string, error) {
	p, err := exec.LookPath("tmux")
	if err != nil {
		return "", errors.New("tmux is not installed (interactive sessions need it: apt-get install tmux)")
	}
	return p, nil
}

// SocketPath is the private socket of the sessions under key (a project's
// session store), in the user's private socket directory (rundir).
func SocketPath(runtimeDir, key string) (string, error) {
	dir, err := rundir.Dir(runtimeDir)
	if err != nil {
		return "", fmt.Errorf("tmux %w", err)
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir, hex.EncodeToString(sum[:6])+".sock"), nil
}

// SessionName is the tmux session of a csa session.
func SessionName(id string) string { return "csa-" + id }

// target addresses a session by its exact name (a bare name is a prefix
// match in tmux).
func target(name string) string { return "=" + name + ":" }

func (s Server) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, cmdTimeout)
	defer cancel()
	spec := proc.Spec{Path: s.Bin, Args: append([]string{"-S", s.Socket}, args...), Env: Env(os.Environ())}
	if stdin != nil {
		spec.Stdin = bytes.NewReader(stdin)
	}
	c, err := proc.Capture(ctx, spec, time.Second)
	if err != nil {
		return nil, fmt.Errorf("tmux %s: %w", args[0], err)
	}
	if c.ExitCode != 0 {
		msg := strings.TrimSpace(c.Stderr)
		if msg == "" {
			msg = fmt.Sprintf("exit status %d", c.ExitCode)
		}
		return c.Stdout, &Error{Cmd: args[0], Msg: msg}
	}
	return c.Stdout, nil
}

// Env is env without TMUX and TMUX_PANE: csa inside a tmux pane still
// talks to its own server, and attaching from inside tmux works.
func Env(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			out = append(out, kv)
		}
	}
	return out
}

// Error is a tmux command that failed.
type Error struct{ Cmd, Msg string }

func (e *Error) Error() string { return "tmux " + e.Cmd + ": " + e.Msg }

// NoServer reports whether err means that no server listens on the socket.
func NoServer(err error) bool {
	var te *Error
	if !errors.As(err, &te) {
		return false
	}
	return strings.Contains(te.Msg, "no server running") || strings.Contains(te.Msg, "error connecting") ||
		strings.Contains(te.Msg, "No such file or directory")
}

// serverGoneFor bounds NewSession's retries while a dying server goes.
const serverGoneFor = 3 * time.Second

// serverExited reports whether err is a client that lost the server as it
// connected (the server was exiting).
func serverExited(err error) bool {
	var te *Error
	return errors.As(err, &te) && (strings.Contains(te.Msg, "server exited unexpectedly") || strings.Contains(te.Msg, "lost server"))
}

// NoSession reports whether err means that the session does not exist.
func NoSession(err error) bool {
	var te *Error
	return NoServer(err) || errors.As(err, &te) && (strings.Contains(te.Msg, "can't find session") || strings.Contains(te.Msg, "can't find pane"))
}

// New describes a session to create.
type New struct {
	Name          string
	Dir           string
	Argv          []string // the pane's command, run without a shell
	Width, Height int
	// PipeTo records every byte the pane shows into this file, from the
	// pane's first byte (the recording starts in the same tmux command).
	PipeTo string
}

// NewSession creates a detached session and returns its pane's pid. The
// server, if it has to start, reads no configuration file, so a user's
// ~/.tmux.conf cannot change what csa sees.
func (s Server) NewSession(ctx context.Context, n New) (int, error) {
	args := []string{"-f", "/dev/null", "new-session", "-d", "-s", n.Name, "-c", n.Dir,
		"-x", strconv.Itoa(n.Width), "-y", strconv.Itoa(n.Height), "-P", "-F", "#{pane_pid}", "--"}
	args = append(args, n.Argv...)
	if n.PipeTo != "" {
		args = append(args, ";", "pipe-pane", "-o", "-t", target(n.Name), "exec cat >> "+shellquote.Quote(n.PipeTo))
	}
	// The server keeps history for a person attaching later.
	args = append(args, ";", "set-option", "-t", target(n.Name), "history-limit", "10000")
	out, err := s.run(ctx, nil, args...)
	// A server whose last session just ended exits while this client
	// connects to it: it made nothing, and the next try starts a server of
	// its own.
	for deadline := time.Now().Add(serverGoneFor); serverExited(err) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		out, err = s.run(ctx, nil, args...)
	}
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(firstLine(out)))
	if err != nil {
		return 0, fmt.Errorf("tmux new-session: no pane pid in %q", out)
	}
	return pid, nil
}

// Pane is the state of a session's (first) pane.
type Pane struct {
	Session    string `json:"session"`
	PID        int    `json:"pid"`
	Dead       bool   `json:"dead"`
	DeadStatus *int   `json:"dead_status,omitempty"`
	Command    string `json:"command"`
}

// Panes lists every pane of the server in one call, by session name. No
// server means no panes.
func (s Server) Panes(ctx context.Context) (map[string]Pane, error) {
	out, err := s.run(ctx, nil, "list-panes", "-a", "-F", "#{session_name}|#{pane_pid}|#{pane_dead}|#{pane_dead_status}|#{pane_current_command}")
	if err != nil {
		if NoServer(err) {
			return map[string]Pane{}, nil
		}
		return nil, err
	}
	return parsePanes(out), nil
}

func parsePanes(out []byte) map[string]Pane {
	panes := map[string]Pane{}
	for _, line := range strings.Split(string(out), "\n") {
		// "|", not a tab: without a UTF-8 locale tmux escapes control
		// characters in formats. The command, last, may hold anything.
		f := strings.SplitN(line, "|", 5)
		if len(f) < 5 {
			continue
		}
		p := Pane{Session: f[0], Dead: f[2] == "1", Command: f[4]}
		p.PID, _ = strconv.Atoi(f[1])
		if n, err := strconv.Atoi(f[3]); err == nil {
			p.DeadStatus = &n
		}
		if _, seen := panes[p.Session]; !seen {
			panes[p.Session] = p
		}
	}
	return panes
}

// SendKeys sends tmux key names (Enter, C-c, Escape, ...).
func (s Server) SendKeys(ctx context.Context, name string, keys ...string) error {
	_, err := s.run(ctx, nil, append([]string{"send-keys", "-t", target(name), "--"}, keys...)...)
	return err
}

// Paste puts data into a buffer and pastes it into the pane as a bracketed
// paste (when the program asked for bracketed pastes), so a multi-line text
// arrives as one input, not one submission per line. The buffer is deleted.
func (s Server) Paste(ctx context.Context, name string, data []byte) error {
	buf := "csa-" + strconv.Itoa(os.Getpid())
	_, err := s.run(ctx, data, "load-buffer", "-b", buf, "-", ";", "paste-buffer", "-p", "-d", "-b", buf, "-t", target(name))
	return err
}

// KillSession ends one session. The server exits by itself once its last
// session is gone; csa never kills the server.
func (s Server) KillSession(ctx context.Context, name string) error {
	_, err := s.run(ctx, nil, "kill-session", "-t", target(name))
	if NoSession(err) {
		return nil
	}
	return err
}

// AttachArgs is the argv (after the program) attaching a terminal to name.
func (s Server) AttachArgs(name string) []string {
	return []string{"-S", s.Socket, "attach-session", "-t", target(name)}
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}

// Command renders argv as a shell command line.
func Command(bin string, args []string) string {
	parts := []string{shellquote.IfNeeded(bin)}
	for _, a := range args {
		parts = append(parts, shellquote.IfNeeded(a))
	}
	return strings.Join(parts, " ")
}
