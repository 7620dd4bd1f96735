package agents

// codexInteractive starts the Codex TUI. Filled in from measurements of
// codex 0.169 in tmux.
func codexInteractive(r InteractiveRequest) (InteractiveInvocation, error) {
	inv := InteractiveInvocation{SubmitDelayMS: 250}
	if r.Yolo {
		inv.Args = append(inv.Args, "--dangerously-bypass-approvals-and-sandbox")
	}
	inv.Args = appendFlag(inv.Args, "-m", r.Model)
	if r.Effort != "" {
		inv.Args = append(inv.Args, "-c", "model_reasoning_effort="+r.Effort)
	}
	inv.Args = appendPrompt(inv.Args, r.Prompt)
	return inv, nil
}
