package fakeagent

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// emitter prints what the fake agent says in the structured output of the
// tool it stands in for (CSA_TOOL), or as plain lines without one.
type emitter interface {
	start(session string)
	text(s string)
	fail(msg string) // a provider error in the tool's own format
	end()
	// retry reports, as the real program does, that it retries a request
	// that failed with a 429.
	retry(attempt, max int)
}

func newEmitter(tool string) emitter {
	switch tool {
	case "claude-code", "csa-agent": // csa-agent speaks Claude Code's stream-json
		return &claudeOut{}
	case "codex":
		return &codexOut{}
	case "gemini-cli":
		return &geminiOut{}
	case "opencode":
		return &opencodeOut{}
	}
	return plainOut{}
}

func emit(v any) {
	b, _ := json.Marshal(v)
	os.Stdout.Write(append(b, '\n'))
}

type m = map[string]any

var usage = m{"input_tokens": 12, "output_tokens": 7}

type plainOut struct{}

func (plainOut) start(string)    {}
func (plainOut) text(s string)   { fmt.Println(s) }
func (plainOut) fail(msg string) { fmt.Fprintln(os.Stderr, msg) }
func (plainOut) end()            {}
func (plainOut) retry(n, max int) {
	fmt.Fprintf(os.Stderr, "retrying after a 429 (%d/%d)\n", n, max)
}

type claudeOut struct {
	sid  string
	said []string
}

func (c *claudeOut) start(s string) {
	c.sid = s
	emit(m{"type": "system", "subtype": "init", "session_id": s, "model": reported("fake-claude")})
}
func (c *claudeOut) text(s string) {
	c.said = append(c.said, s)
	emit(m{"type": "assistant", "session_id": c.sid, "message": m{"content": []m{{"type": "text", "text": s}}}})
}
func (c *claudeOut) fail(msg string) {
	emit(m{"type": "result", "subtype": "success", "is_error": true, "result": msg, "session_id": c.sid})
}
func (c *claudeOut) retry(n, max int) {
	emit(m{"type": "system", "subtype": "api_retry", "attempt": n, "max_retries": max, "retry_delay_ms": 1000, "error_status": 429, "error": "rate_limit", "session_id": c.sid})
}
func (c *claudeOut) end() {
	emit(m{"type": "result", "subtype": "success", "is_error": false, "result": strings.Join(c.said, "\n"), "session_id": c.sid, "usage": usage})
}

type codexOut struct{ n int }

func (c *codexOut) start(s string) {
	emit(m{"type": "thread.started", "thread_id": s})
	emit(m{"type": "turn.started"})
}
func (c *codexOut) text(s string) {
	c.n++
	emit(m{"type": "item.completed", "item": m{"id": fmt.Sprintf("item_%d", c.n), "type": "agent_message", "text": s}})
}
func (c *codexOut) fail(msg string) { emit(m{"type": "turn.failed", "error": m{"message": msg}}) }
func (c *codexOut) retry(n, max int) {
	emit(m{"type": "error", "message": fmt.Sprintf("Reconnecting... %d/%d (exceeded retry limit, last status: 429 Too Many Requests)", n, max)})
}
func (c *codexOut) end() {
	emit(m{"type": "turn.completed", "usage": m{"input_tokens": 12, "cached_input_tokens": 0, "output_tokens": 7}})
}

type geminiOut struct{}

func (geminiOut) start(s string) {
	emit(m{"type": "init", "session_id": s, "model": reported("fake-gemini")})
}

// reported is the model a program says it uses: the one it was given, as
// the real ones do, else its default.
func reported(def string) string {
	if model != "" {
		return model
	}
	return def
}
func (geminiOut) text(s string) {
	emit(m{"type": "message", "role": "assistant", "content": s + "\n", "delta": true})
}
func (geminiOut) fail(msg string) {
	emit(m{"type": "result", "status": "error", "error": m{"type": "api", "message": msg}})
}
func (geminiOut) retry(n, max int) {
	fmt.Fprintf(os.Stderr, "Attempt %d failed: Resource exhausted.\nSuggested retry after 1s.. Retrying after 5000ms...\n", n)
}
func (geminiOut) end() {
	emit(m{"type": "result", "status": "success", "stats": m{"input_tokens": 12, "output_tokens": 7, "total_tokens": 19}})
}

type opencodeOut struct{ sid string }

func (o *opencodeOut) start(s string) {
	o.sid = s
	emit(m{"type": "step_start", "sessionID": s, "part": m{"type": "step-start"}})
}
func (o *opencodeOut) text(s string) {
	emit(m{"type": "text", "sessionID": o.sid, "part": m{"type": "text", "text": s + "\n"}})
}
func (o *opencodeOut) fail(msg string) {
	emit(m{"type": "error", "sessionID": o.sid, "error": m{"name": "APIError", "data": m{"message": msg}}})
}
func (o *opencodeOut) retry(n, max int) {
	fmt.Fprintf(os.Stderr, "timestamp=2026-01-01T00:00:00Z level=ERROR message=\"stream error\" providerID=p error.error=\"AI_APICallError: Rate limit reached (429)\"\n")
}
func (o *opencodeOut) end() {
	emit(m{"type": "step_finish", "sessionID": o.sid, "part": m{"type": "step-finish", "reason": "stop", "tokens": m{"input": 12, "output": 7, "reasoning": 0, "cache": m{"read": 0, "write": 0}}}})
}

func randomID(tool string) string {
	var b [16]byte
	rand.Read(b[:])
	if tool == "opencode" {
		return fmt.Sprintf("ses_%x", b[:12])
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
