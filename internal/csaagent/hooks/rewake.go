package hooks

import (
	"fmt"
	"strings"
	"time"
)

// RewakeWait bounds how long a session that ends waits for its asyncRewake
// hooks still running (Claude Code's ASYNC_REWAKE_FLUSH_TIMEOUT_MS).
const RewakeWait = 30 * time.Second

// backgrounded tells whether c runs in the background: an async hook
// always, an asyncRewake one only where a woken model can answer
// (wakeable: the session goes on after a turn). Claude Code 2.1.197 runs
// asyncRewake hooks in the foreground in -p without streamed input.
func (c Command) backgrounded(wakeable bool) bool {
	return c.Async || c.AsyncRewake && wakeable
}

// startRewake runs an asyncRewake hook in the background; when it exits
// 2 the model is woken: the notice waits in Wakes for the loop (after the
// calls of a turn in progress) or for the front end (a new turn).
func (e *Engine) startRewake(event, subject string, c Command, body []byte) {
	e.bg.wg.Add(1)
	e.bg.rewakes.Add(1)
	go func() {
		defer e.bg.wg.Done()
		defer e.bg.rewakes.Done()
		r := e.runOne(e.bg.ctx, c, body)
		switch {
		case e.bg.ctx.Err() != nil:
			return // the session ended first
		case r.timedOut:
			fmt.Fprintf(e.o.Stderr, "csa-agent: asyncRewake %s hook %s timed out after %s and was killed\n", event, r, r.timeout)
			return
		case r.err != nil:
			fmt.Fprintf(e.o.Stderr, "csa-agent: asyncRewake %s hook %s: %v\n", event, r, r.err)
			return
		case r.code != 2:
			return // only a blocking error wakes the model
		}
		name := event
		if subject != "" {
			name += ":" + subject
		}
		text := rewakeNotice(c, name, firstOf(r.stderr, string(r.stdout)))
		fmt.Fprintf(e.o.Stderr, "csa-agent: %s\n", firstOf(c.RewakeSummary, "Stop hook feedback"))
		e.bg.mu.Lock()
		e.bg.wakes = append(e.bg.wakes, text)
		e.bg.mu.Unlock()
		select {
		case e.bg.woke <- struct{}{}:
		default: // a signal is already waiting
		}
	}()
}

// rewakeNotice is the message that wakes the model, in Claude Code's
// words: a task notification with the summary, then the prefix (by
// default naming the hook, as "PostToolUse:Bash") and the hook's stderr,
// or its stdout when stderr is empty, as a system reminder.
func rewakeNotice(c Command, hookName, output string) string {
	prefix := c.RewakeMessage
	if prefix == "" {
		prefix = fmt.Sprintf("Stop hook blocking error from command %q:", hookName)
	}
	summary := firstOf(c.RewakeSummary, "Stop hook feedback")
	escape := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	return "<task-notification>\n<summary>" + escape.Replace(summary) + "</summary>\n</task-notification>\n" +
		"<system-reminder>\n" + prefix + " " + output + "\n</system-reminder>"
}

// midTurn is a notice as Claude Code hands it to a model still at work:
// marked as no message from the user.
func midTurn(notice string) string {
	return "[SYSTEM NOTIFICATION - NOT USER INPUT]\n" +
		"This is an automated background-task event, NOT a message from the user.\n" +
		"Do NOT interpret this as user acknowledgement, confirmation, or response to any pending question.\n" + notice
}

// Woken is signalled when an asyncRewake hook has a notice waiting (see
// Wakes); a front end that waits for its user selects on it too.
func (e *Engine) Woken() <-chan struct{} {
	if e == nil {
		return nil
	}
	return e.bg.woke
}

// Wakes takes the notices of the asyncRewake hooks that woke the model,
// each to start a turn with (the user message Claude Code sends).
func (e *Engine) Wakes() []string {
	if e == nil {
		return nil
	}
	e.bg.mu.Lock()
	defer e.bg.mu.Unlock()
	w := e.bg.wakes
	e.bg.wakes = nil
	return w
}

// Settle waits, at most RewakeWait, for the asyncRewake hooks still
// running, as Claude Code does before it exits: their notices come too
// late to wake anyone, but the hooks finish their work.
func (e *Engine) Settle() {
	if e == nil {
		return
	}
	done := make(chan struct{})
	go func() {
		e.bg.rewakes.Wait()
		close(done)
	}()
	t := time.NewTimer(RewakeWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// midTurnWakes are the waiting notices for a model still at work.
func (e *Engine) midTurnWakes() []string {
	w := e.Wakes()
	for i := range w {
		w[i] = midTurn(w[i])
	}
	return w
}
