package cmdutil

import (
	"errors"
	"fmt"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/interrupt"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// Signals annotates a command whose signals differ from the default (the
// first SIGINT, SIGTERM or SIGHUP cancels its context).
const Signals = "csa/signals"

// SignalsPane: SIGINT is the agent's in the terminal; SIGTERM, SIGHUP and
// SIGQUIT end the command.
const SignalsPane = "pane"

// Exit codes, the documented contract of every command.
const (
	ExitOK          = 0
	ExitFailed      = 1 // the agent failed, or a waited-for session did
	ExitUsage       = 2 // usage or configuration error
	ExitRefused     = 3 // refused before start: depth limit, tool missing, forbidden
	ExitTimeout     = 124
	ExitInterrupted = 130
)

// Error carries a stable machine-readable code and an exit status.
type Error struct {
	Code string
	Exit int
	Err  error
	// Who is the command that says it (csa inspect), when not the
	// program ("csa: ..."), in the error's line on stderr.
	Who string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Constructors for the error kinds commands raise themselves.
func Usagef(format string, a ...any) error {
	return &Error{Code: "usage", Exit: ExitUsage, Err: fmt.Errorf(format, a...)}
}
func Refused(code string, err error) error {
	return &Error{Code: code, Exit: ExitRefused, Err: err}
}

// Silent is an exit status whose explanation has already been printed
// (a failed run, a wait that timed out).
type Silent struct{ Exit int }

func (s *Silent) Error() string { return fmt.Sprintf("exit status %d", s.Exit) }

// Classify maps any error to its code and exit status. It is the one table
// from errors to exit codes.
func Classify(err error) (code string, exit int) {
	var e *Error
	var inv *session.InvalidIDError
	var amb *session.AmbiguousError
	var nf *session.NotFoundError
	var ex *session.ExistsError
	var cfg *config.Error
	var tool *agents.UnknownToolError
	var nul *agents.NULError
	var depth *runner.DepthError
	var remote *remoterun.InvalidError
	switch {
	case errors.As(err, &e):
		return e.Code, e.Exit
	case errors.As(err, &inv):
		return "invalid_id", ExitUsage
	case errors.As(err, &amb):
		return "ambiguous_id", ExitUsage
	case errors.As(err, &nf):
		return "not_found", ExitUsage
	case errors.As(err, &ex):
		return "session_exists", ExitUsage
	case errors.As(err, &cfg):
		return "config", ExitUsage
	case errors.As(err, &tool):
		return "unknown_tool", ExitUsage
	case errors.As(err, &nul):
		return "nul_byte", ExitUsage
	case errors.As(err, &depth):
		return "depth_limit", ExitRefused
	case errors.As(err, &remote):
		return "usage", ExitUsage
	case interrupt.Is(err):
		return "interrupted", ExitInterrupted
	case fsutil.NoSpace(err):
		// As a run stopped by a full disk is recorded (session.FailNoSpace).
		return session.FailNoSpace, ExitFailed
	}
	return "internal", ExitFailed
}
