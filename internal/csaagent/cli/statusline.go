package cli

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/outputstyle"
	"github.com/csa-dev/csa/internal/csaagent/statusline"
	"github.com/csa-dev/csa/internal/csaagent/store"
)

// statusState is what the status line describes that only the session's
// events tell: the main agent's messages and its last response's tokens.
type statusState struct {
	mu       sync.Mutex
	started  time.Time
	messages int
	last     *statusline.Usage
}

// observe is the session's event sink for the status line.
func (st *statusState) observe(e event.Event) {
	if e.Agent != "" {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case e.Kind == event.Assistant:
		st.messages++
	case e.Kind == event.Usage && e.Usage != nil:
		st.last = &statusline.Usage{InputTokens: e.Usage.InputTokens, OutputTokens: e.Usage.OutputTokens,
			CacheCreationInputTokens: e.Usage.CacheWriteTokens, CacheReadInputTokens: e.Usage.CacheReadTokens}
	}
}

// newStatus is the REPL's status line when the settings have one.
func (s *session) newStatus() {
	if sl := s.display.StatusLine; sl != nil {
		s.status = statusline.NewStatus(statusline.Command{Setting: *sl, Dir: s.io.Cwd, Environ: os.Environ()})
	}
}

// showStatus prints the status line above the REPL's prompt when the
// state it describes changed since it was last run.
func (s *session) showStatus(ctx context.Context) {
	if s.status == nil {
		return
	}
	s.track.mu.Lock()
	messages, last := s.track.messages, s.track.last
	s.track.mu.Unlock()
	mode := string(s.policy.Mode())
	key := fmt.Sprintf("%d %+v %s %s", messages, last, mode, s.model)
	text, fresh := s.status.Update(ctx, key, func() statusline.Input { return s.statusInput(last) })
	if fresh && text != "" {
		fmt.Fprintln(s.io.Stderr, statusline.Padded(text, s.display.StatusLine.Padding))
	}
}

func (s *session) statusInput(last *statusline.Usage) statusline.Input {
	added := []string{} // [] rather than null, as Claude Code sends it
	for _, r := range s.env.Roots {
		if r != s.io.Cwd {
			added = append(added, r)
		}
	}
	style := outputstyle.Default
	if s.style != nil {
		style = s.style.Name
	}
	return statusline.Input{
		SessionID:      s.id,
		TranscriptPath: store.Path(store.Dir(s.io.Getenv), s.id),
		Cwd:            s.io.Cwd,
		Model:          statusline.Model{ID: s.model, DisplayName: s.model},
		Workspace:      statusline.Workspace{CurrentDir: s.io.Cwd, ProjectDir: s.io.Cwd, AddedDirs: added},
		Version:        Version,
		OutputStyle:    statusline.OutputStyle{Name: style},
		Cost:           statusline.Cost{TotalDurationMS: time.Since(s.track.started).Milliseconds()},
		ContextWindow:  statusline.NewContextWindow(last, s.window),
		Exceeds200kTokens: last != nil &&
			last.InputTokens+last.CacheCreationInputTokens+last.CacheReadInputTokens > 200_000,
	}
}
