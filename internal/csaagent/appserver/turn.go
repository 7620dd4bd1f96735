package appserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/thread"
	"github.com/csa-dev/csa/internal/jsonrpc"
)

// turnRun is a turn in progress.
type turnRun struct {
	id      string
	cancel  context.CancelFunc
	started time.Time
	items   atomic.Int64 // for item ids
}

func newID(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func (p *TurnStartParams) validate() error {
	if p.ThreadID == "" {
		return fmt.Errorf("threadId is required")
	}
	if len(p.Input) == 0 {
		return fmt.Errorf("input is required: at least one {\"type\":\"text\",\"text\":...} item")
	}
	for i, in := range p.Input {
		if in.Type != "text" {
			return fmt.Errorf("input[%d]: type %q is not supported (only text)", i, in.Type)
		}
	}
	if p.ApprovalPolicy != nil && !oneOf(*p.ApprovalPolicy, approvalPolicies) {
		return fmt.Errorf("approvalPolicy %q: want one of %v", *p.ApprovalPolicy, approvalPolicies)
	}
	return nil
}

func (p *TurnInterruptParams) validate() error {
	if p.ThreadID == "" || p.TurnID == "" {
		return fmt.Errorf("threadId and turnId are required")
	}
	return nil
}

// turnStart starts a turn and answers at once; the turn's notifications
// follow the answer and end with turn/completed.
func (c *conn) turnStart(ctx context.Context, p TurnStartParams) (TurnStartResponse, error) {
	var texts []string
	for _, in := range p.Input {
		texts = append(texts, in.Text)
	}
	input := strings.Join(texts, "\n")
	c.mu.Lock()
	t := c.threads[p.ThreadID]
	var err error
	switch {
	case t == nil:
		err = jsonrpc.Errorf(codeInvalidRequest, "no thread %q on this connection: thread/start or thread/resume it first", p.ThreadID)
	case t.running != nil:
		err = jsonrpc.Errorf(codeInvalidRequest, "thread %s is running turn %s: turn/interrupt it or wait for turn/completed", p.ThreadID, t.running.id)
	case c.base.Err() != nil:
		err = jsonrpc.Errorf(codeInvalidRequest, "the connection is closing")
	default:
		select {
		case c.turnSlot <- struct{}{}:
		default:
			err = overloaded("turnCapacity", "server overloaded: %d turns running on this connection; retry when one ends", c.o.MaxTurns)
		}
	}
	if err != nil {
		c.mu.Unlock()
		return TurnStartResponse{}, err
	}
	if p.ApprovalPolicy != nil {
		t.policy = *p.ApprovalPolicy
	}
	tctx, cancel := context.WithCancel(c.base)
	run := &turnRun{id: newID("turn-"), cancel: cancel, started: time.Now()}
	t.running = run
	policy := t.policy
	c.turns.Add(1)
	c.mu.Unlock()

	turn := Turn{ID: run.id, Items: []any{}, Status: TurnInProgress, StartedAt: ptr(run.started.Unix())}
	afterReply(ctx, func() { go c.runTurn(tctx, t, run, input, policy) })
	return TurnStartResponse{Turn: turn}, nil
}

func ptr[T any](v T) *T { return &v }

func (c *conn) runTurn(ctx context.Context, t *openThread, run *turnRun, input, policy string) {
	defer c.turns.Done()
	threadID := t.th.ID()
	c.notify("turn/started", TurnNotification{ThreadID: threadID, Turn: Turn{ID: run.id, Items: []any{},
		Status: TurnInProgress, StartedAt: ptr(run.started.Unix())}})
	m := newMapper(threadID, run.id, t.th.Cwd(), c.notify, func(kind string) string {
		return fmt.Sprintf("%s-%s-%d", run.id, kind, run.items.Add(1))
	})
	var approve thread.Approver
	if policy != "never" {
		approve = c.approver(threadID, run, m)
	}
	out := t.th.Run(ctx, input, m, approve)
	m.Flush()

	done := time.Now()
	turn := Turn{ID: run.id, Items: []any{}, StartedAt: ptr(run.started.Unix()), CompletedAt: ptr(done.Unix()),
		DurationMs: ptr(done.Sub(run.started).Milliseconds())}
	switch {
	case out.End == "interrupted" || (ctx.Err() != nil && out.IsError):
		turn.Status = TurnInterrupted
	case out.IsError:
		turn.Status = TurnFailed
		turn.Error = &TurnError{Message: firstNonEmpty(out.Text, "the turn ended: "+out.End)}
		if out.Class != "" {
			turn.Error.AdditionalDetails = ptr(out.Class)
		}
	default:
		turn.Status = TurnCompleted
	}
	c.mu.Lock()
	t.running = nil
	c.mu.Unlock()
	run.cancel()
	<-c.turnSlot
	c.notify("turn/completed", TurnNotification{ThreadID: threadID, Turn: turn})
}

func (c *conn) turnInterrupt(_ context.Context, p TurnInterruptParams) (TurnInterruptResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.threads[p.ThreadID]
	if t == nil {
		return TurnInterruptResponse{}, jsonrpc.Errorf(codeInvalidRequest, "no thread %q on this connection", p.ThreadID)
	}
	if t.running == nil || t.running.id != p.TurnID {
		return TurnInterruptResponse{}, jsonrpc.Errorf(codeInvalidRequest, "turn %q is not running on thread %s", p.TurnID, p.ThreadID)
	}
	t.running.cancel()
	return TurnInterruptResponse{}, nil
}

// approver asks the client about a call: Bash calls and other tools as
// item/commandExecution/requestApproval (another tool's call is shown as
// "Tool input"), file edits as item/fileChange/requestApproval.
func (c *conn) approver(threadID string, run *turnRun, m *mapper) thread.Approver {
	var mu sync.Mutex // one question at a time, as a person answers them
	return func(ctx context.Context, r thread.Request) thread.Decision {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now().UnixMilli()
		reason := ptr(r.Reason)
		var method string
		var params any
		switch r.Kind {
		case "file":
			method = "item/fileChange/requestApproval"
			params = FileChangeRequestApprovalParams{ThreadID: threadID, TurnID: run.id, ItemID: r.ToolID, StartedAtMs: now, Reason: reason}
		default:
			cmd := r.Command
			if r.Kind != "command" {
				cmd = r.ToolName + " " + truncate(string(r.Input), 500)
			}
			method = "item/commandExecution/requestApproval"
			params = CommandExecutionRequestApprovalParams{ThreadID: threadID, TurnID: run.id, ItemID: r.ToolID,
				StartedAtMs: now, Reason: reason, Command: &cmd, Cwd: ptr(m.cwd)}
		}
		answer, err := c.call(ctx, method, params)
		d := thread.Decline
		if err == nil {
			var resp ApprovalResponse
			json.Unmarshal(answer.Result, &resp)
			var cancel bool
			d, cancel = decision(resp.Decision.RawMessage)
			if cancel {
				run.cancel()
			}
		}
		if d == thread.Decline {
			m.Declined(r.ToolID)
		}
		return d
	}
}

// decision reads a client's answer; cancel also interrupts the turn, and
// anything unknown declines.
func decision(raw json.RawMessage) (d thread.Decision, cancel bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "accept":
			return thread.Accept, false
		case "acceptForSession":
			return thread.AcceptForSession, false
		case "cancel":
			return thread.Decline, true
		}
		return thread.Decline, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		if _, ok := obj["acceptWithExecpolicyAmendment"]; ok {
			return thread.AcceptForSession, false
		}
		if _, ok := obj["applyNetworkPolicyAmendment"]; ok {
			return thread.Accept, false
		}
	}
	return thread.Decline, false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
