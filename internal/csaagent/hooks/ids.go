package hooks

import (
	"time"

	"github.com/csa-dev/csa/internal/session"
)

// Claude Code's inputs carry the id of the prompt being worked on
// (prompt_id) and, after a call, how long it took (duration_ms).

// newPrompt gives the prompt being submitted a fresh id.
func (e *Engine) newPrompt() {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.promptID = session.NewUUID()
	e.mu.Unlock()
}

// prompt is the id of the latest prompt ("" before the first).
func (e *Engine) prompt() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.promptID
}

// start notes when call id was about to run.
func (e *Engine) start(id string) {
	if e == nil || id == "" {
		return
	}
	e.mu.Lock()
	e.started[id] = time.Now()
	e.mu.Unlock()
}

// took is how long call id took since start, forgetting it.
func (e *Engine) took(id string) (time.Duration, bool) {
	if e == nil {
		return 0, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	t, ok := e.started[id]
	delete(e.started, id)
	return time.Since(t), ok
}
