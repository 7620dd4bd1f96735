package agents

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// InteractiveRequest is what an interactive session asks of an adapter.
type InteractiveRequest struct {
	Prompt string // the first input, "" for none
	Model  string
	Effort string
	Yolo   bool
	Root   bool
	// NewSessionID names the provider session where the tool allows it.
	NewSessionID string
	// Hook is the command line (already shell-quoted) that records a hook
	// event; the adapter appends the event: "submit" or "stop".
	Hook string
	// Dir is the session directory, for files the tool reads at start.
	Dir string
	// MCP and Getenv: see Request.
	MCP    []MCPServer
	Getenv func(string) string
}

// InteractiveInvocation is how to start the tool's interactive interface.
type InteractiveInvocation struct {
	Args []string
	Env  []string
	// Files to write (path -> content) before the program starts.
	Files map[string][]byte
	// Hooks: the program announces finished turns through Hook.
	Hooks             bool
	ProviderSessionID string
	// SubmitDelayMS is how long to wait between typed text and the Enter
	// that submits it (some interfaces take a quick Enter as part of a
	// paste).
	SubmitDelayMS int
	// ReadyMS is how long after its start the interface may still drop
	// an Enter; with a start hook (ReadyHook) csa waits for that instead,
	// ReadyMS at most.
	ReadyMS   int
	ReadyHook bool
}

// MaxInteractivePrompt bounds a first prompt given in argv; a longer one is
// sent into the pane after the start.
const MaxInteractivePrompt = MaxArgvPrompt

// BuildInteractive builds the interactive invocation of t.
func BuildInteractive(t Tool, r InteractiveRequest) (InteractiveInvocation, error) {
	if len(r.Prompt) > MaxInteractivePrompt {
		return InteractiveInvocation{}, fmt.Errorf("a first prompt of %d bytes is too long for the command line (max %d): start without one and use `csa send --text-file`", len(r.Prompt), MaxInteractivePrompt)
	}
	s, ok := Lookup(string(t))
	if !ok {
		return InteractiveInvocation{}, &UnknownToolError{Name: string(t)}
	}
	if s.Interactive == nil {
		return InteractiveInvocation{}, fmt.Errorf("%s has no interactive interface csa can drive", t)
	}
	return s.Interactive(r)
}

// claudeInteractive installs a Stop and a UserPromptSubmit hook for this
// session only, through --settings.
func claudeInteractive(r InteractiveRequest) (InteractiveInvocation, error) {
	// Measured: keys sent in the first ~0.9 s lose their Enter; the
	// SessionStart hook fires at 0.8-1.3 s.
	inv, err := withSettings(r, "claude-settings.json", InteractiveInvocation{SubmitDelayMS: 50, ReadyMS: 3000}, claudeMCPArgs(r.MCP)...)
	if err == nil && r.Yolo && r.Root {
		inv.Env = append(inv.Env, "IS_SANDBOX=1")
	}
	return inv, err
}

// withSettings completes inv (its timings set) for a program that takes
// Claude Code's interactive flags and hooks: the hooks in a settings file
// called name in the session directory, given with --settings; extra come
// before it (an option of several values must not take the prompt).
func withSettings(r InteractiveRequest, name string, inv InteractiveInvocation, extra ...string) (InteractiveInvocation, error) {
	settings, b, err := hookSettings(r, name)
	if err != nil {
		return InteractiveInvocation{}, err
	}
	inv.Hooks, inv.ReadyHook, inv.Files = true, true, map[string][]byte{settings: b}
	if r.Yolo {
		inv.Args = append(inv.Args, "--dangerously-skip-permissions")
	}
	inv.Args = appendFlag(inv.Args, "--model", r.Model)
	inv.Args = appendFlag(inv.Args, "--effort", r.Effort)
	if r.NewSessionID != "" {
		inv.Args = append(inv.Args, "--session-id", r.NewSessionID)
		inv.ProviderSessionID = r.NewSessionID
	}
	inv.Args = append(append(inv.Args, extra...), "--settings", settings)
	inv.Args = appendPrompt(inv.Args, r.Prompt)
	return inv, nil
}

// hookSettings is a Claude Code settings file, named name in the session
// directory, whose hooks record the session's start (SessionStart: ready),
// inputs (UserPromptSubmit: submit) and finished turns (Stop: stop).
func hookSettings(r InteractiveRequest, name string) (path string, content []byte, err error) {
	hooks := map[string]any{
		"hooks": map[string]any{
			"SessionStart":     hookEntry(r.Hook + " ready"),
			"Stop":             hookEntry(r.Hook + " stop"),
			"UserPromptSubmit": hookEntry(r.Hook + " submit"),
		},
	}
	b, err := json.MarshalIndent(hooks, "", "  ")
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(r.Dir, name), b, nil
}

// claudeTranscript is Claude Code's transcript of a session under home:
// ~/.claude/projects/<cwd, / replaced by ->/<session id>.jsonl.
func claudeTranscript(home, providerSession string) string {
	if home == "" || providerSession == "" {
		return ""
	}
	m, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", providerSession+".jsonl"))
	if len(m) == 0 {
		return ""
	}
	return m[0]
}

func hookEntry(command string) []any {
	return []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command}}}}
}

// appendPrompt puts the prompt last, after "--" when it looks like an
// option.
func appendPrompt(args []string, prompt string) []string {
	if prompt == "" {
		return args
	}
	if strings.HasPrefix(prompt, "-") {
		args = append(args, "--")
	}
	return append(args, prompt)
}
