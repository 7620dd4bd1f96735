package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Events are the hook events csa-agent fires, as Claude Code names them.
var Events = []string{
	PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart, SessionEnd,
	Stop, SubagentStart, SubagentStop, PreCompact, Notification, PermissionRequest,
}

// Event names.
const (
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	UserPromptSubmit   = "UserPromptSubmit"
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
	Stop               = "Stop"
	SubagentStart      = "SubagentStart"
	SubagentStop       = "SubagentStop"
	PreCompact         = "PreCompact"
	Notification       = "Notification"
	PermissionRequest  = "PermissionRequest"
)

// DefaultTimeout bounds a hook that sets no timeout: ten minutes, as in
// Claude Code 2.1.197 (its hooks' default, 600000 ms, in its code).
const DefaultTimeout = 10 * time.Minute

// Settings is the "hooks" object of a Claude Code settings file: groups of
// commands by event.
type Settings map[string][]Group

// Group is commands that run when Matcher matches the event's subject
// (the tool name for tool events; "" and "*" match everything).
type Group struct {
	Matcher string    `json:"matcher" toml:"matcher"`
	Hooks   []Command `json:"hooks" toml:"hooks"`
}

// Command is one hook. Only "command" hooks exist in csa-agent.
type Command struct {
	Type    string  `json:"type" toml:"type"`
	Command string  `json:"command" toml:"command"`
	Timeout float64 `json:"timeout,omitempty" toml:"timeout"` // seconds
	// Env is added to a plugin's hook's environment (CLAUDE_PLUGIN_ROOT...).
	Env []string `json:"-" toml:"-"`
	// If is a permission rule ("Bash(git commit:*)", "Edit(*.go)"): the
	// hook runs only for the tool calls it matches, and never for events
	// that are not about a tool call, as in Claude Code.
	If string `json:"if,omitempty" toml:"if"`
	// Async hooks run in the background: the agent does not wait for
	// them and they cannot block or decide anything; what they say
	// (systemMessage, additionalContext) reaches the model on a later
	// turn. Those still running when the session ends are killed.
	Async bool `json:"async,omitempty" toml:"async"`
	// AsyncRewake hooks run in the background where the session goes on
	// after a turn (the REPL), and in the foreground like any hook in -p,
	// as in Claude Code; one that exits 2 in the background wakes the
	// model with RewakeMessage (a prefix) and its output, RewakeSummary
	// the notice's summary (see rewake.go).
	AsyncRewake   bool   `json:"asyncRewake,omitempty" toml:"async_rewake"`
	RewakeMessage string `json:"rewakeMessage,omitempty" toml:"rewake_message"`
	RewakeSummary string `json:"rewakeSummary,omitempty" toml:"rewake_summary"`
}

// SettingsFiles are Claude Code's settings files that may hold hooks, in
// the order they are merged: the user's, the project's, the project's
// local one.
func SettingsFiles(home, projectDir string) []string {
	return []string{
		filepath.Join(home, ".claude", "settings.json"),
		filepath.Join(projectDir, ".claude", "settings.json"),
		filepath.Join(projectDir, ".claude", "settings.local.json"),
	}
}

// ReadFile reads the hooks of one of Claude Code's settings files; a
// missing file has none. The file is Claude Code's too: the events and
// hook types csa-agent does not have are left out, not errors.
func ReadFile(path string) (Settings, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s, err := parse(data, path)
	if err != nil {
		return nil, err
	}
	s = s.runnable()
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// runnable is s without the events and hook types csa-agent lacks.
func (s Settings) runnable() Settings {
	out := Settings{}
	for ev, groups := range s {
		if !known(ev) {
			continue
		}
		for _, g := range groups {
			var cmds []Command
			for _, c := range g.Hooks {
				if c.Type == "command" {
					cmds = append(cmds, c)
				}
			}
			if len(cmds) > 0 {
				out[ev] = append(out[ev], Group{Matcher: g.Matcher, Hooks: cmds})
			}
		}
	}
	return out
}

// ReadFlag reads --settings: a file, or the JSON itself when it starts
// with "{" (as Claude Code accepts). A missing file is an error here: it
// was named on purpose.
func ReadFlag(arg string) (Settings, error) {
	if strings.HasPrefix(strings.TrimSpace(arg), "{") {
		return Parse([]byte(arg), "--settings")
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		return nil, fmt.Errorf("--settings: %w", err)
	}
	return Parse(data, "--settings "+arg)
}

// Parse reads the hooks of a settings file's content, strictly (see
// Check); where names it in errors. Other settings are not csa-agent's
// business here.
func Parse(data []byte, where string) (Settings, error) {
	s, err := parse(data, where)
	if err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return s, nil
}

func parse(data []byte, where string) (Settings, error) {
	var f struct {
		Hooks Settings `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return f.Hooks, nil
}

// Check reports what csa-agent cannot run: an unknown event, a matcher
// that is no regular expression, a hook that is not a command.
func (s Settings) Check() error {
	var errs []error
	for ev, groups := range s {
		if !known(ev) {
			errs = append(errs, fmt.Errorf("hooks: unknown event %q (the events are %s)", ev, strings.Join(Events, ", ")))
			continue
		}
		for _, g := range groups {
			if _, err := compileMatcher(g.Matcher); err != nil {
				errs = append(errs, fmt.Errorf("hooks.%s: matcher %q: %w", ev, g.Matcher, err))
			}
			for _, c := range g.Hooks {
				switch {
				case c.Type != "command":
					errs = append(errs, fmt.Errorf("hooks.%s: hook type %q: csa-agent runs only \"command\" hooks", ev, c.Type))
				case strings.TrimSpace(c.Command) == "":
					errs = append(errs, fmt.Errorf("hooks.%s: a command hook without a command", ev))
				case c.Timeout < 0:
					errs = append(errs, fmt.Errorf("hooks.%s: negative timeout", ev))
				}
			}
		}
	}
	return errors.Join(errs...)
}

func known(ev string) bool {
	for _, e := range Events {
		if e == ev {
			return true
		}
	}
	return false
}

// Merge appends the groups of each settings in turn: every source's hooks
// run (Claude Code merges hooks, it does not override them).
func Merge(all ...Settings) Settings {
	out := Settings{}
	for _, s := range all {
		for ev, groups := range s {
			out[ev] = append(out[ev], groups...)
		}
	}
	return out
}

// matcher decides whether a group applies to an event's subject.
type matcher func(subject string) bool

// plainMatcher is a tool name or names joined by |: matched exactly, as
// Claude Code does ("Edit" does not match "NotebookEdit").
var plainMatcher = regexp.MustCompile(`^[A-Za-z0-9_|]+$`)

// toolAliases are other names a hook's matcher may give a tool: the tool
// csa-agent calls Task (as Claude Code once did) Claude Code now calls
// Agent, and hooks written for either must fire.
var toolAliases = map[string][]string{"Task": {"Agent"}}

// compileMatcher is a group's matcher, matching a tool by its name or by
// one of its aliases.
func compileMatcher(m string) (matcher, error) {
	match, err := compileName(m)
	if err != nil {
		return nil, err
	}
	return func(s string) bool {
		if match(s) {
			return true
		}
		for _, a := range toolAliases[s] {
			if match(a) {
				return true
			}
		}
		return false
	}, nil
}

func compileName(m string) (matcher, error) {
	switch {
	case m == "" || m == "*":
		return func(string) bool { return true }, nil
	case plainMatcher.MatchString(m):
		names := strings.Split(m, "|")
		return func(s string) bool {
			for _, n := range names {
				if n == s {
					return true
				}
			}
			return false
		}, nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return nil, err
	}
	return re.MatchString, nil
}
