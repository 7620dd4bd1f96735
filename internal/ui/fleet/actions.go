package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/errline"
	"github.com/csa-dev/csa/internal/proc"
)

// CSA runs csa's own commands for the views' actions (kill, send, logs,
// attach, review), as csa-mcp's tools do: the views reimplement none of
// them.
type CSA struct {
	Path string   // the csa program
	Dir  string   // where it runs (the project)
	Env  []string // nil: this process's
}

// actionTimeout bounds a kill, send or logs call.
const actionTimeout = time.Minute

// Kill stops a session (csa kill ID).
func (c CSA) Kill(ctx context.Context, id string) error {
	_, err := c.output(ctx, "kill", id)
	return err
}

// Send types a line into an interactive session and submits it (csa send
// ID --text LINE --enter).
func (c CSA) Send(ctx context.Context, id, line string) error {
	_, err := c.output(ctx, "send", id, "--text", line, "--enter")
	return err
}

// Logs is the session's log as csa logs shows it.
func (c CSA) Logs(ctx context.Context, id string) (string, error) {
	return c.output(ctx, "logs", id)
}

func (c CSA) output(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	out, err := proc.Capture(ctx, proc.Spec{Path: c.Path, Args: args, Dir: c.Dir, Env: c.Env, DieWithParent: true}, 2*time.Second)
	if out == nil {
		return "", fmt.Errorf("csa %s: %w", args[0], err)
	}
	if err == nil && out.ExitCode != 0 {
		msg := strings.TrimSpace(out.Stderr)
		if _, m := errline.Parse(out.Stderr); m != "" {
			msg = m
		}
		err = errors.New(strings.TrimPrefix(msg, "csa: "))
	}
	return string(out.Stdout), err
}

// Terminal is a csa command that takes over the terminal (attach, a
// review), for the terminal view to run while it steps aside.
type Terminal struct {
	Spec proc.Spec
}

// Attach is csa attach ID.
func (c CSA) Attach(id string) *Terminal {
	return &Terminal{proc.Spec{Path: c.Path, Args: []string{"attach", id}, Dir: c.Dir, Env: c.Env, InTerminal: true}}
}

// Review is csa review --diff in the session's working directory, followed
// by a prompt to press Enter, so its verdict stays on screen until read.
func (c CSA) Review(cwd string) *Terminal {
	script := `"$0" review --diff "$@"; printf '\n[csa top: press Enter to return] '; read _`
	dir := cwd
	if dir == "" {
		dir = c.Dir
	}
	return &Terminal{proc.Spec{Path: "/bin/sh", Args: []string{"-c", script, c.Path}, Dir: dir, Env: c.Env, InTerminal: true}}
}

// Run runs the command on the given streams (the terminal), to its end.
func (t *Terminal) Run(ctx context.Context, in io.Reader, out, errOut io.Writer) error {
	sp := t.Spec
	sp.Stdin, sp.Stdout, sp.Stderr = in, out, errOut
	ps, err := proc.Run(ctx, sp, 2*time.Second)
	if err == nil && ps != nil && ps.ExitCode() != 0 {
		err = fmt.Errorf("%s exited with status %d", strings.Join(sp.Args[:1], " "), ps.ExitCode())
	}
	return err
}
