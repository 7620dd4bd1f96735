package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// background runs the async hooks and keeps what they said for the model
// until the next turn takes it.
type background struct {
	ctx  context.Context // ended by Close: the hooks still running are killed
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu   sync.Mutex
	said []string // systemMessage and additionalContext of finished hooks

	// The asyncRewake hooks (rewake.go): those running, the notices of
	// those that woke the model, and a signal that one is waiting.
	rewakes sync.WaitGroup
	wakes   []string
	woke    chan struct{}
}

// startAsync runs c in the background: nothing waits for it, and its
// answer cannot block or decide. As in Claude Code, its first JSON line
// (other than an {"async": ...} one) may carry a systemMessage and
// additionalContext, which reach the model on a later turn.
func (e *Engine) startAsync(event string, c Command, body []byte) {
	e.bg.wg.Add(1)
	go func() {
		defer e.bg.wg.Done()
		r := e.runOne(e.bg.ctx, c, body)
		if e.bg.ctx.Err() != nil {
			return // the session ended first
		}
		e.asyncEnded(event, r)
	}()
}

// asyncEnded reports how a background hook ended and keeps what it said
// for the model.
func (e *Engine) asyncEnded(event string, r run) {
	switch {
	case r.timedOut:
		fmt.Fprintf(e.o.Stderr, "csa-agent: async %s hook %s timed out after %s and was killed\n", event, r, r.timeout)
		return
	case r.err != nil:
		fmt.Fprintf(e.o.Stderr, "csa-agent: async %s hook %s: %v\n", event, r, r.err)
		return
	case r.code != 0:
		// Reported; what it printed still counts, as in Claude Code.
		fmt.Fprintf(e.o.Stderr, "csa-agent: async %s hook %s failed (exit %d): %s\n", event, r, r.code, trim(r.stderr))
	}
	o, ok := asyncAnswer(r.stdout)
	if !ok {
		return
	}
	var said []string
	if o.SystemMessage != "" {
		fmt.Fprintf(e.o.Stderr, "csa-agent: %s hook: %s\n", event, o.SystemMessage)
		said = append(said, o.SystemMessage)
	}
	if h := o.HookSpecificOutput; h != nil && h.AdditionalContext != "" {
		said = append(said, h.AdditionalContext)
	}
	e.bg.mu.Lock()
	e.bg.said = append(e.bg.said, said...)
	e.bg.mu.Unlock()
}

// asyncAnswer is the first line of stdout that is a JSON object without
// an "async" key, as Claude Code reads an async hook's answer.
func asyncAnswer(stdout []byte) (output, bool) {
	for _, line := range bytes.Split(stdout, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if !bytes.HasPrefix(line, []byte("{")) {
			continue
		}
		var keys map[string]json.RawMessage
		if json.Unmarshal(line, &keys) != nil {
			continue
		}
		if _, ok := keys["async"]; ok {
			continue
		}
		var o output
		if json.Unmarshal(line, &o) != nil {
			continue
		}
		return o, true
	}
	return output{}, false
}

// asyncSaid takes what the finished async hooks said for the model.
func (e *Engine) asyncSaid() []string {
	if e == nil {
		return nil
	}
	e.bg.mu.Lock()
	defer e.bg.mu.Unlock()
	said := e.bg.said
	e.bg.said = nil
	return said
}

// Close kills the async hooks still running and waits for them, as
// Claude Code does when its session ends.
func (e *Engine) Close() {
	if e == nil || e.bg.stop == nil {
		return
	}
	e.bg.stop()
	e.bg.wg.Wait()
}
