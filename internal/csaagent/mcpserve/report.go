package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/csa-dev/csa/internal/csaagent/event"
)

// reporter shows the client a turn at work: each model request and tool
// call becomes a progress notification (when the call carried a
// progressToken) and a log message (when the client set a log level). A
// goroutine sends them, so the loop never waits on the client; when the
// client falls far behind, notes are dropped, not queued without end.
type reporter struct {
	ctx   context.Context
	req   *mcp.CallToolRequest
	token any
	conv  string

	mu     sync.Mutex
	closed bool
	notes  chan note
	done   chan struct{}
}

type note struct {
	message string
	data    map[string]any
}

func newReporter(ctx context.Context, req *mcp.CallToolRequest, conv string) *reporter {
	r := &reporter{ctx: ctx, req: req, token: req.Params.GetProgressToken(), conv: conv,
		notes: make(chan note, 256), done: make(chan struct{})}
	go r.send()
	return r
}

func (r *reporter) Emit(e event.Event) {
	n, ok := noteOf(e)
	if !ok {
		return
	}
	n.data["conversation_id"] = r.conv
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	select {
	case r.notes <- n:
	default:
	}
}

// close sends what is queued and stops: the notes reach the client
// before the call's result.
func (r *reporter) close() {
	r.mu.Lock()
	r.closed = true
	close(r.notes)
	r.mu.Unlock()
	<-r.done
}

func (r *reporter) send() {
	defer close(r.done)
	progress := 0.0
	for n := range r.notes {
		if r.ctx.Err() != nil {
			continue // the call is over for the client: drain
		}
		if r.token != nil {
			progress++
			r.req.Session.NotifyProgress(r.ctx, &mcp.ProgressNotificationParams{
				ProgressToken: r.token, Progress: progress, Message: n.message})
		}
		r.req.Session.Log(r.ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "csa-agent", Data: n.data})
	}
}

// noteOf describes the events worth showing: model requests and tool
// calls, the subagents' too.
func noteOf(e event.Event) (note, bool) {
	who := ""
	if e.Agent != "" {
		who = "[" + e.Agent + "] "
	}
	data := map[string]any{"event": string(e.Kind)}
	if e.Agent != "" {
		data["agent"] = e.Agent
	}
	switch e.Kind {
	case event.TurnStart:
		return note{who + "asking the model", data}, true
	case event.ToolStarted:
		data["tool"], data["tool_id"], data["input"] = e.ToolName, e.ToolID, e.Input
		return note{who + e.ToolName + " " + brief(string(e.Input)), data}, true
	case event.ToolFinished:
		data["tool"], data["tool_id"], data["is_error"] = e.ToolName, e.ToolID, e.IsError
		status := "done"
		if e.IsError {
			status = "failed: " + brief(e.Text)
		}
		return note{fmt.Sprintf("%s%s %s", who, e.ToolName, status), data}, true
	case event.CompactStart:
		return note{who + "compacting the conversation", data}, true
	}
	return note{}, false
}

// brief is s on one line, cut to a length a progress line can show.
func brief(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			s = string(b)
		}
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}
