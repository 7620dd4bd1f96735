// Package perm decides whether csa-agent may make a tool call: permission
// modes and allow/deny rules in Claude Code's syntax. The agent runs
// headless, so there is no "ask": what is not allowed is denied, with a
// reason telling the model (and the user reading the log) which rule would
// allow it.
package perm

import (
	"fmt"
	"strings"
)

// Mode is a permission mode.
type Mode string

// The modes, as Claude Code names them.
const (
	// Default allows read-only calls and calls an allow rule matches.
	Default Mode = "default"
	// AcceptEdits also allows file edits within the roots.
	AcceptEdits Mode = "acceptEdits"
	// Plan allows read-only calls only.
	Plan Mode = "plan"
	// BypassPermissions allows everything deny rules do not forbid.
	BypassPermissions Mode = "bypassPermissions"
)

// Modes lists the modes.
var Modes = []Mode{Default, AcceptEdits, Plan, BypassPermissions}

// ParseMode reads a mode name ("" is Default).
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return Default, nil
	}
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("unknown permission mode %q: use one of %s", s, strings.Join(names, ", "))
}
