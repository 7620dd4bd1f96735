package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/csa-dev/csa/internal/csaagent/event"
)

// Text is the human view: the answer streamed to Out, tool calls and
// notices to Info (stderr in a pipe, the same terminal in the REPL).
type Text struct {
	mu   sync.Mutex
	Out  io.Writer
	Info io.Writer
	// Stream shows text as it arrives (the REPL); otherwise only the final
	// answer is printed (headless, like claude -p).
	Stream bool
	// Verbose shows tool calls and results headless too.
	Verbose bool
	midLine bool
}

func (t *Text) Emit(e event.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.Agent != "" && e.Kind != event.SubagentStart && e.Kind != event.SubagentStop {
		return
	}
	show := t.Stream || t.Verbose
	switch e.Kind {
	case event.TextDelta:
		if t.Stream {
			fmt.Fprint(t.Out, e.Text)
			t.midLine = !strings.HasSuffix(e.Text, "\n")
		}
	case event.ToolStarted:
		if show {
			t.newline()
			fmt.Fprintf(t.Info, "⏺ %s(%s)\n", e.ToolName, summary(e.Input))
		}
	case event.ToolFinished:
		if show && e.IsError {
			fmt.Fprintf(t.Info, "  ⎿ error: %s\n", firstLine(e.Text))
		}
	case event.Retry:
		fmt.Fprintf(t.Info, "retrying in %s (attempt %d/%d): %s\n", e.Delay, e.Attempt, e.MaxRetries, e.Text)
	case event.CompactStart:
		if show {
			fmt.Fprintln(t.Info, "compacting the conversation…")
		}
	case event.SubagentStart:
		if show {
			fmt.Fprintf(t.Info, "⏺ subagent %s: %s\n", e.Agent, e.Text)
		}
	case event.Result:
		if e.Agent != "" {
			return
		}
		if t.Stream {
			t.newline()
			if e.IsError {
				fmt.Fprintf(t.Info, "error: %s\n", e.Text)
			}
			return
		}
		if e.IsError {
			fmt.Fprintf(t.Info, "csa-agent: %s\n", e.Text)
			return
		}
		fmt.Fprintln(t.Out, e.Text)
	}
}

func (t *Text) newline() {
	if t.midLine {
		fmt.Fprintln(t.Out)
		t.midLine = false
	}
}

// summary is a call's input in one short line: its most telling field.
func summary(input json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "file_path", "pattern", "path", "url", "description", "prompt"} {
		if v, ok := m[k].(string); ok {
			return truncate(firstLine(v), 80)
		}
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
