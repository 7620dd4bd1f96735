package subagent

import (
	"context"
	"fmt"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// Await is the loop's Config.Await: when the model has finished its turn
// while background subagents run, it waits until at least one of them
// ends and returns their answers as a user message, so no result is
// lost; ok is false when none is running or waiting to be delivered, or
// ctx ended.
func (h *Hooks) Await(ctx context.Context) (llm.Message, bool) {
	for {
		h.mu.Lock()
		done, running, changed := h.done, len(h.bg), h.changed
		if len(done) > 0 {
			h.done = nil
			h.mu.Unlock()
			return deliver(done), true
		}
		h.mu.Unlock()
		if running == 0 {
			return llm.Message{}, false
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return llm.Message{}, false
		}
	}
}

// Running lists the ids of the background subagents still running.
func (h *Hooks) Running() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for id := range h.bg {
		out = append(out, id)
	}
	return out
}

func deliver(done []*background) llm.Message {
	var b strings.Builder
	for i, d := range done {
		if i > 0 {
			b.WriteString("\n\n")
		}
		status := "finished"
		if d.res.IsError {
			status = "failed"
		}
		fmt.Fprintf(&b, "<subagent-result id=%q type=%q description=%q status=%q>\n%s\n</subagent-result>",
			d.id, d.typ, d.desc, status, d.res.Output)
	}
	return llm.UserText("The background subagents below have ended; here are their final answers.\n\n" + b.String())
}
