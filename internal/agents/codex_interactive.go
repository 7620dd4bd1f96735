package agents

import (
	"fmt"
	"strings"
)

// codexInteractive starts the Codex TUI with this session's own Stop and
// UserPromptSubmit hooks, given as invocation config (-c), so the user's
// ~/.codex is never written; --dangerously-bypass-hook-trust lets hooks
// from the invocation layer run without a trust prompt. --no-daemon keeps
// the UI from starting a background app-server that outlives the session.
func codexInteractive(r InteractiveRequest) (InteractiveInvocation, error) {
	// Measured: keys sent in the first ~0.5 s lose their Enter; a
	// bracketed paste and then Enter is always one submission.
	inv := InteractiveInvocation{Hooks: true, SubmitDelayMS: 100, ReadyMS: 1000}
	if r.Yolo {
		inv.Args = append(inv.Args, "--dangerously-bypass-approvals-and-sandbox")
	}
	inv.Args = appendFlag(inv.Args, "-m", r.Model)
	if r.Effort != "" {
		inv.Args = append(inv.Args, "-c", "model_reasoning_effort="+r.Effort)
	}
	inv.Args = append(inv.Args, codexMCPArgs(r.MCP)...)
	inv.Args = append(inv.Args,
		"-c", "hooks.Stop="+tomlHook(r.Hook+" stop"),
		"-c", "hooks.UserPromptSubmit="+tomlHook(r.Hook+" submit"),
		"--dangerously-bypass-hook-trust", "--no-daemon")
	inv.Args = appendPrompt(inv.Args, r.Prompt)
	return inv, nil
}

// tomlHook is one command hook as a TOML inline value.
func tomlHook(command string) string {
	return `[{hooks=[{type="command",command=` + tomlString(command) + `}]}]`
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
