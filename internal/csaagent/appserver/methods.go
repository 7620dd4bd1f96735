package appserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/thread"
	"github.com/csa-dev/csa/internal/jsonrpc"
)

// method is a client request: its name, its params and result types (for
// the schema) and its handler. The one table below feeds both the
// dispatcher and the schema, so they cannot disagree.
type method struct {
	name           string
	params, result reflect.Type
	// handle answers raw params; then, if not nil, runs once the answer is
	// queued (a turn's notifications follow its turn/start response).
	handle func(ctx context.Context, c *conn, raw json.RawMessage) (result any, then func(), err error)
}

type afterKey struct{}

// afterReply has f run once the request's answer is queued.
func afterReply(ctx context.Context, f func()) {
	if p, ok := ctx.Value(afterKey{}).(*func()); ok {
		*p = f
	}
}

func handler[P, R any](name string, f func(*conn, context.Context, P) (R, error)) method {
	return method{name: name, params: reflect.TypeFor[P](), result: reflect.TypeFor[R](),
		handle: func(ctx context.Context, c *conn, raw json.RawMessage) (any, func(), error) {
			var p P
			if len(bytes.TrimSpace(raw)) > 0 && string(raw) != "null" {
				if err := json.Unmarshal(raw, &p); err != nil {
					return nil, nil, jsonrpc.Errorf(codeInvalidParams, "%s: invalid params: %v", name, err)
				}
			}
			if v, ok := any(&p).(interface{ validate() error }); ok {
				if err := v.validate(); err != nil {
					return nil, nil, jsonrpc.Errorf(codeInvalidParams, "%s: %v", name, err)
				}
			}
			var then func()
			r, err := f(c, context.WithValue(ctx, afterKey{}, &then), p)
			if err != nil {
				return nil, nil, err
			}
			return r, then, nil
		}}
}

// The client requests csa-agent answers; every other method is -32601.
var clientRequests = []method{
	handler("initialize", (*conn).initialize),
	handler("thread/start", (*conn).threadStart),
	handler("thread/resume", (*conn).threadResume),
	handler("thread/list", (*conn).threadList),
	handler("turn/start", (*conn).turnStart),
	handler("turn/interrupt", (*conn).turnInterrupt),
	handler("config/read", (*conn).configRead),
	handler("model/list", (*conn).modelList),
	handler("skills/list", (*conn).skillsList),
}

// aliases are other names clients use for a method: "models/list" (as
// the methods of csa's issue spell it) is Codex's "model/list". They are
// answered, not advertised in the schema.
var aliases = map[string]string{"models/list": "model/list"}

var clientMethods = func() map[string]method {
	m := map[string]method{}
	for _, r := range clientRequests {
		m[r.name] = r
	}
	for alias, name := range aliases {
		m[alias] = m[name]
	}
	return m
}()

// Notifications the server sends, with their params.
var serverNotifications = []struct {
	name   string
	params reflect.Type
}{
	{"thread/started", reflect.TypeFor[ThreadStartedNotification]()},
	{"turn/started", reflect.TypeFor[TurnNotification]()},
	{"turn/completed", reflect.TypeFor[TurnNotification]()},
	{"item/started", reflect.TypeFor[ItemStartedNotification]()},
	{"item/completed", reflect.TypeFor[ItemCompletedNotification]()},
	{"item/agentMessage/delta", reflect.TypeFor[AgentMessageDeltaNotification]()},
	{"item/reasoning/textDelta", reflect.TypeFor[ReasoningTextDeltaNotification]()},
}

// Requests the server sends the client, with their params and answers.
var serverRequests = []struct {
	name           string
	params, result reflect.Type
}{
	{"item/commandExecution/requestApproval", reflect.TypeFor[CommandExecutionRequestApprovalParams](), reflect.TypeFor[ApprovalResponse]()},
	{"item/fileChange/requestApproval", reflect.TypeFor[FileChangeRequestApprovalParams](), reflect.TypeFor[ApprovalResponse]()},
}

// Notifications a client sends: initialized, after initialize's answer.
var clientNotifications = []string{"initialized"}

func (p *InitializeParams) validate() error {
	if p.ClientInfo.Name == "" {
		return fmt.Errorf("clientInfo.name is required")
	}
	return nil
}

func (c *conn) initialize(_ context.Context, p InitializeParams) (InitializeResponse, error) {
	if c.initialized.Swap(true) {
		return InitializeResponse{}, jsonrpc.Errorf(codeInvalidRequest, "already initialized")
	}
	return InitializeResponse{
		UserAgent:      fmt.Sprintf("csa-agent/%s (%s; %s) %s/%s", c.o.Version, runtime.GOOS, runtime.GOARCH, p.ClientInfo.Name, p.ClientInfo.Version),
		ServerInfo:     ServerInfo{Name: "csa-agent", Version: c.o.Version},
		PlatformFamily: platformFamily(),
		PlatformOs:     runtime.GOOS,
		CodexHome:      c.o.Home,
	}, nil
}

func platformFamily() string {
	if runtime.GOOS == "windows" {
		return "windows"
	}
	return "unix"
}

func (c *conn) configRead(context.Context, ConfigReadParams) (ConfigReadResponse, error) {
	cfg := map[string]any{"csaAgent": c.o.Host.Config()}
	if models := c.o.Host.Models(); len(models) > 0 {
		cfg["model"] = models[0]
	}
	return ConfigReadResponse{Config: cfg, Origins: map[string]any{}}, nil
}

func (c *conn) modelList(_ context.Context, p ModelListParams) (ModelListResponse, error) {
	var all []Model
	for i, spec := range c.o.Host.Models() {
		all = append(all, Model{ID: spec, Model: spec, DisplayName: spec, Description: "configured in csa-agent",
			IsDefault: i == 0, DefaultReasoningEffort: "medium", SupportedReasoningEfforts: efforts})
	}
	data, next, err := page(all, p.Cursor, p.Limit, func(m Model) string { return m.ID })
	return ModelListResponse{Data: data, NextCursor: next}, err
}

// efforts are csa-agent's --effort values.
var efforts = []Effort{{"low", "think briefly"}, {"medium", "think some"}, {"high", "think hard"}}

func (c *conn) skillsList(_ context.Context, p SkillsListParams) (SkillsListResponse, error) {
	cwds := p.Cwds
	if len(cwds) == 0 {
		cwds = []string{""}
	}
	out := SkillsListResponse{Data: []SkillsListEntry{}}
	for _, cwd := range cwds {
		e := SkillsListEntry{Cwd: cwd, Skills: []Skill{}, Errors: []SkillError{}}
		if c.o.Skills != nil {
			skills, errs := c.o.Skills(cwd)
			e.Skills = append(e.Skills, skills...)
			e.Errors = append(e.Errors, errs...)
		}
		out.Data = append(out.Data, e)
	}
	return out, nil
}

// page cuts a list the latest first into pages: cursor is the key of the
// previous page's last entry.
func page[T any](all []T, cursor *string, limit *uint32, key func(T) string) ([]T, *string, error) {
	start := 0
	if cursor != nil && *cursor != "" {
		start = -1
		for i, v := range all {
			if key(v) == *cursor {
				start = i + 1
				break
			}
		}
		if start < 0 {
			return nil, nil, jsonrpc.Errorf(codeInvalidParams, "unknown cursor %q (pass the nextCursor of the previous page)", *cursor)
		}
	}
	n := 25
	if limit != nil && *limit > 0 {
		n = int(*limit)
	}
	end := min(start+n, len(all))
	data := append([]T{}, all[start:end]...)
	if end < len(all) {
		next := key(all[end-1])
		return data, &next, nil
	}
	return data, nil, nil
}

// threadObject describes a thread for the client.
func threadObject(info thread.Info, version, status string) Thread {
	provider, _, ok := strings.Cut(info.Model, "/")
	if !ok {
		provider = "csa-agent"
	}
	model := info.Model
	t := Thread{ID: info.ID, SessionID: info.ID, Preview: info.Preview, Model: &model, ModelProvider: provider,
		Cwd: info.Cwd, CliVersion: version, Source: "appServer", Status: Status{Type: status}, Turns: []Turn{}}
	t.CreatedAt, t.UpdatedAt = unix(info.Created), unix(info.Updated)
	return t
}

func unix(t time.Time) int64 {
	if t.IsZero() {
		return time.Now().Unix()
	}
	return t.Unix()
}
