package acp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/csa-dev/csa/internal/agents"
)

// handler serves the agent's requests and notifications (sdk.Client).
type handler struct{ c *Client }

var errNoTerminal = errors.New("csa offers no terminal capability")

// SessionUpdate maps one update to normalised events.
func (h handler) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	c := h.c
	c.mu.Lock()
	c.updates = ctx
	live := c.emitting
	c.mu.Unlock()
	if !live {
		return nil
	}
	u := n.Update
	switch {
	case u.AgentMessageChunk != nil:
		if t := blockText(u.AgentMessageChunk.Content); t != "" {
			c.appendText(t)
		}
	case u.AgentThoughtChunk != nil:
		if t := blockText(u.AgentThoughtChunk.Content); t != "" {
			c.emit(agents.EvThought, agents.Text{Text: t, Delta: true})
		}
	case u.ToolCall != nil:
		tc := u.ToolCall
		c.emit(agents.EvToolCall, agents.ToolCall{ID: string(tc.ToolCallId), Name: tc.Title, Input: rawJSON(tc.RawInput)})
	case u.ToolCallUpdate != nil:
		tu := u.ToolCallUpdate
		status := ""
		if tu.Status != nil {
			status = string(*tu.Status)
		}
		title := ""
		if tu.Title != nil {
			title = *tu.Title
		}
		switch status {
		case "completed", "failed":
			c.emit(agents.EvToolResult, agents.ToolResult{ID: string(tu.ToolCallId), Name: title, Output: toolText(tu.Content, tu.RawOutput), IsError: status == "failed"})
		default:
			c.emit(EvToolUpdate, map[string]any{"id": string(tu.ToolCallId), "status": status, "title": title})
		}
	case u.Plan != nil:
		c.emit(EvPlan, map[string]any{"entries": u.Plan.Entries})
	case u.UsageUpdate != nil:
		c.emit(EvContext, map[string]any{"used": u.UsageUpdate.Used, "size": u.UsageUpdate.Size})
	}
	return nil
}

// RequestPermission answers by policy: yolo allows; otherwise only the
// configured tool kinds. A headless run never waits for a human.
func (h handler) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	kind := ""
	if p.ToolCall.Kind != nil {
		kind = string(*p.ToolCall.Kind)
	}
	title := ""
	if p.ToolCall.Title != nil {
		title = *p.ToolCall.Title
	}
	allow, reason := h.c.cfg.Yolo, "yolo"
	if !allow {
		allow = kind != "" && slices.Contains(h.c.cfg.AllowKinds, kind)
		reason = "tool kind " + orNone(kind) + " is allowed by configuration"
		if !allow {
			reason = "headless run without yolo: tool kind " + orNone(kind) + " is not in the allowed kinds"
		}
	}
	opt := pick(p.Options, allow)
	if !allow || opt == "" {
		h.c.mu.Lock()
		if len(h.c.denied) < 16 {
			h.c.denied = append(h.c.denied, orNone(title))
		}
		h.c.mu.Unlock()
	}
	rec := map[string]any{"tool_call_id": string(p.ToolCall.ToolCallId), "title": title, "kind": kind, "allowed": allow, "reason": reason}
	if opt == "" {
		rec["allowed"], rec["reason"] = false, reason+"; no matching option offered"
		h.c.emit(EvPermission, rec)
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	rec["option"] = string(opt)
	h.c.emit(EvPermission, rec)
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(opt)}, nil
}

// pick chooses the option of the wanted kind: allow once before always (a
// decision of this run only), reject once before always.
func pick(opts []sdk.PermissionOption, allow bool) sdk.PermissionOptionId {
	prefs := []sdk.PermissionOptionKind{sdk.PermissionOptionKindRejectOnce, sdk.PermissionOptionKindRejectAlways}
	if allow {
		prefs = []sdk.PermissionOptionKind{sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways}
	}
	for _, k := range prefs {
		for _, o := range opts {
			if o.Kind == k {
				return o.OptionId
			}
		}
	}
	return ""
}

// ReadTextFile serves a read inside the confinement.
func (h handler) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	path, err := h.c.fs.check(p.Path)
	if err != nil {
		h.c.refused("read", p.Path, err)
		return sdk.ReadTextFileResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return sdk.ReadTextFileResponse{}, &sdk.RequestError{Code: -32002, Message: "Resource not found", Data: map[string]any{"path": p.Path}}
		}
		return sdk.ReadTextFileResponse{}, err
	}
	content := sliceLines(string(data), p.Line, p.Limit)
	h.c.emit(EvFS, markRelative(map[string]any{"op": "read", "path": path, "bytes": len(content)}, p.Path))
	return sdk.ReadTextFileResponse{Content: content}, nil
}

// WriteTextFile serves a write inside the confinement.
func (h handler) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	path, err := h.c.fs.check(p.Path)
	if err != nil {
		h.c.refused("write", p.Path, err)
		return sdk.WriteTextFileResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	if err := os.WriteFile(path, []byte(p.Content), mode); err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	h.c.emit(EvFS, markRelative(map[string]any{"op": "write", "path": path, "bytes": len(p.Content)}, p.Path))
	return sdk.WriteTextFileResponse{}, nil
}

func (c *Client) refused(op, path string, err error) {
	c.emit(EvFS, markRelative(map[string]any{"op": op, "path": path, "refused": true, "reason": err.Error()}, path))
	c.emit(agents.EvError, agents.ErrorEvent{Message: "fs/" + op + "_text_file refused: " + err.Error()})
}

// markRelative notes in a record that the agent gave a relative path, and
// which: ACP asks for absolute ones, so this shows who strays from it.
func markRelative(rec map[string]any, requested string) map[string]any {
	if !filepath.IsAbs(requested) {
		rec["relative"], rec["requested"] = true, requested
	}
	return rec
}

func (handler) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNoTerminal
}

func (handler) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNoTerminal
}

func (handler) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNoTerminal
}

func (handler) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNoTerminal
}

func (handler) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNoTerminal
}

func blockText(b sdk.ContentBlock) string {
	if b.Text != nil {
		return b.Text.Text
	}
	return ""
}

// toolText is a tool's output as text, clipped: the whole exchange is in
// the output log.
func toolText(content []sdk.ToolCallContent, raw any) string {
	var b strings.Builder
	for _, c := range content {
		if c.Content != nil {
			b.WriteString(blockText(c.Content.Content))
		}
	}
	if b.Len() == 0 && raw != nil {
		if s, ok := raw.(string); ok {
			b.WriteString(s)
		} else if data, err := json.Marshal(raw); err == nil {
			b.Write(data)
		}
	}
	const max = 16 << 10
	s := b.String()
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "") + "…"
	}
	return s
}

func rawJSON(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return data
}

// sliceLines returns limit lines from line (1-based), as fs/read_text_file
// asks.
func sliceLines(s string, line, limit *int) string {
	if line == nil && limit == nil {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	from := 0
	if line != nil && *line > 1 {
		from = min(*line-1, len(lines))
	}
	to := len(lines)
	if limit != nil && *limit >= 0 {
		to = min(from+*limit, len(lines))
	}
	return strings.Join(lines[from:to], "")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
