package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// hooks are the command hooks of a Claude Code settings file that
// csa-agent runs: SessionStart, UserPromptSubmit and Stop. They are how a
// program driving the REPL (csa's classifier) learns that it is ready, that
// input was taken and that a turn is complete.
type hooks struct {
	byEvent map[string][]string // event -> commands
	base    map[string]any      // fields every hook input carries
}

type settingsFile struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// hookTimeout bounds one hook command: a hung hook must not hang the agent.
const hookTimeout = 60 * time.Second

func loadHooks(path string) (*hooks, error) {
	h := &hooks{byEvent: map[string][]string{}}
	if path == "" {
		return h, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--settings: %w", err)
	}
	var s settingsFile
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("--settings %s: %w", path, err)
	}
	for ev, groups := range s.Hooks {
		for _, g := range groups {
			for _, c := range g.Hooks {
				if c.Type == "command" && c.Command != "" {
					h.byEvent[ev] = append(h.byEvent[ev], c.Command)
				}
			}
		}
	}
	return h, nil
}

// run runs event's hooks with Claude Code's input on stdin, in order. A
// failing hook is reported, never fatal.
func (h *hooks) run(ctx context.Context, event string, fields map[string]any) {
	cmds := h.byEvent[event]
	if len(cmds) == 0 {
		return
	}
	in := map[string]any{"hook_event_name": event}
	for k, v := range h.base {
		in[k] = v
	}
	for k, v := range fields {
		in[k] = v
	}
	body, _ := json.Marshal(in)
	for _, c := range cmds {
		// A turn-complete signal must go out even when the turn was
		// interrupted, so hooks do not inherit cancellation.
		hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), hookTimeout)
		ps, err := proc.Run(hctx, proc.Spec{Path: "/bin/sh", Args: []string{"-c", c}, Stdin: bytes.NewReader(body),
			Stderr: os.Stderr, DieWithParent: true}, time.Second)
		cancel()
		switch {
		case err != nil:
			fmt.Fprintf(os.Stderr, "csa-agent: %s hook %q: %v\n", event, c, err)
		case !ps.Success():
			fmt.Fprintf(os.Stderr, "csa-agent: %s hook %q: %s\n", event, c, ps)
		}
	}
}
