package appserver

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/thread"
	"github.com/csa-dev/csa/internal/jsonrpc"
)

// openThread is a thread open on this connection.
type openThread struct {
	th      thread.Thread
	info    thread.Info
	policy  string // Codex's approval policy: never means no one is asked
	mode    string // the permission mode asked for ("" the configured one)
	running *turnRun
}

// Codex's approval policies and sandbox modes, and the permission modes
// the sandbox modes map to.
var (
	approvalPolicies = []string{"untrusted", "on-failure", "on-request", "never"}
	sandboxModes     = map[string]string{"read-only": "default", "workspace-write": "acceptEdits", "danger-full-access": "bypassPermissions"}
	permissionModes  = []string{"default", "acceptEdits", "plan", "bypassPermissions"}
)

// settings checks and maps a thread's approval policy and permission mode.
func settings(policy, sandbox, mode *string) (string, string, error) {
	p, m := "on-request", ""
	if policy != nil {
		if !oneOf(*policy, approvalPolicies) {
			return "", "", fmt.Errorf("approvalPolicy %q: want one of %v (granular policies are not supported)", *policy, approvalPolicies)
		}
		p = *policy
	}
	if sandbox != nil {
		mapped, ok := sandboxModes[*sandbox]
		if !ok {
			return "", "", fmt.Errorf("sandbox %q: want read-only, workspace-write or danger-full-access", *sandbox)
		}
		m = mapped
	}
	if mode != nil {
		if !oneOf(*mode, permissionModes) {
			return "", "", fmt.Errorf("permissionMode %q: want one of %v", *mode, permissionModes)
		}
		m = *mode
	}
	return p, m, nil
}

func oneOf(s string, list []string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (p *ThreadStartParams) validate() error {
	if p.Cwd != nil && *p.Cwd != "" && !filepath.IsAbs(*p.Cwd) {
		return fmt.Errorf("cwd %q must be an absolute path", *p.Cwd)
	}
	_, _, err := settings(p.ApprovalPolicy, p.Sandbox, p.PermissionMode)
	return err
}

func (p *ThreadResumeParams) validate() error {
	if p.ThreadID == "" {
		return fmt.Errorf("threadId is required")
	}
	if p.Cwd != nil && *p.Cwd != "" && !filepath.IsAbs(*p.Cwd) {
		return fmt.Errorf("cwd %q must be an absolute path", *p.Cwd)
	}
	_, _, err := settings(p.ApprovalPolicy, p.Sandbox, p.PermissionMode)
	return err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (c *conn) threadStart(ctx context.Context, p ThreadStartParams) (ThreadResponse, error) {
	policy, mode, _ := settings(p.ApprovalPolicy, p.Sandbox, p.PermissionMode)
	th, err := c.o.Host.Start(c.base, thread.Options{Cwd: deref(p.Cwd), Model: deref(p.Model), PermissionMode: mode})
	if err != nil {
		return ThreadResponse{}, jsonrpc.Errorf(codeInvalidRequest, "thread/start: %v", err)
	}
	now := time.Now()
	t := c.adopt(th, thread.Info{ID: th.ID(), Cwd: th.Cwd(), Model: th.Model(), Created: now, Updated: now}, policy, mode)
	resp := c.threadResponse(t)
	afterReply(ctx, func() { c.notify("thread/started", ThreadStartedNotification{Thread: resp.Thread}) })
	return resp, nil
}

func (c *conn) threadResume(_ context.Context, p ThreadResumeParams) (ThreadResponse, error) {
	policy, mode, _ := settings(p.ApprovalPolicy, p.Sandbox, p.PermissionMode)
	c.mu.Lock()
	t := c.threads[p.ThreadID]
	c.mu.Unlock()
	if t != nil { // open here already: rejoin it
		return c.threadResponse(t), nil
	}
	th, err := c.o.Host.Resume(c.base, p.ThreadID, thread.Options{Cwd: deref(p.Cwd), Model: deref(p.Model), PermissionMode: mode})
	if err != nil {
		return ThreadResponse{}, jsonrpc.Errorf(codeInvalidRequest, "thread/resume %s: %v", p.ThreadID, err)
	}
	info := thread.Info{ID: th.ID(), Cwd: th.Cwd(), Model: th.Model()}
	if list, err := c.o.Host.List(c.base); err == nil {
		for _, i := range list {
			if i.ID == th.ID() {
				info.Preview, info.Created, info.Updated = i.Preview, i.Created, i.Updated
			}
		}
	}
	return c.threadResponse(c.adopt(th, info, policy, mode)), nil
}

// adopt keeps a thread open on the connection; a thread already open (two
// resumes at once) keeps the first and closes the second.
func (c *conn) adopt(th thread.Thread, info thread.Info, policy, mode string) *openThread {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.threads[th.ID()]; t != nil {
		th.Close()
		return t
	}
	t := &openThread{th: th, info: info, policy: policy, mode: mode}
	c.threads[th.ID()] = t
	return t
}

func (c *conn) threadResponse(t *openThread) ThreadResponse {
	c.mu.Lock()
	defer c.mu.Unlock()
	status := "idle"
	if t.running != nil {
		status = "active"
	}
	obj := threadObject(t.info, c.o.Version, status)
	sandbox := map[string]string{"bypassPermissions": "dangerFullAccess", "acceptEdits": "workspaceWrite"}[t.mode]
	if sandbox == "" {
		sandbox = "readOnly"
	}
	return ThreadResponse{Thread: obj, Model: t.th.Model(), ModelProvider: obj.ModelProvider, Cwd: t.th.Cwd(),
		ApprovalPolicy: t.policy, ApprovalsReviewer: "user", Sandbox: SandboxPolicy{Type: sandbox}}
}

func (c *conn) threadList(_ context.Context, p ThreadListParams) (ThreadListResponse, error) {
	list, err := c.o.Host.List(c.base)
	if err != nil {
		return ThreadListResponse{}, jsonrpc.Errorf(codeInternal, "thread/list: %v", err)
	}
	data, next, err := page(list, p.Cursor, p.Limit, func(i thread.Info) string { return i.ID })
	if err != nil {
		return ThreadListResponse{}, err
	}
	out := ThreadListResponse{Data: []Thread{}, NextCursor: next}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, i := range data {
		status := "notLoaded"
		if t := c.threads[i.ID]; t != nil {
			status = map[bool]string{true: "active", false: "idle"}[t.running != nil]
		}
		out.Data = append(out.Data, threadObject(i, c.o.Version, status))
	}
	return out, nil
}
