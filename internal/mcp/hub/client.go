package hub

import (
	"encoding/json"
	"io"
	"slices"
	"sync"

	"github.com/csa-dev/csa/internal/jsonrpc"
)

// Hello is what `csa-mcp connect` sends before anything else: the servers
// the agent is to see, its project root (whose configuration it sees) and
// the project whose instances of project-scoped servers it shares (Scope,
// "" for Project: a remote run's scratch tree gives its caller's project).
type Hello struct {
	Only    []string `json:"only,omitempty"`
	Project string   `json:"project,omitempty"`
	Scope   string   `json:"scope,omitempty"`
	Caller  *Caller  `json:"caller,omitempty"`
}

// scope is the project of the client's project-scoped instances.
func (h Hello) scope() string {
	if h.Scope != "" {
		return h.Scope
	}
	return h.Project
}

// Caller is where the agent behind a bridge runs: its csa session's
// variables (CSA_SESSION_ID, CSA_DEPTH, ...) and working directory. csa's
// own MCP server behind the hub is a child of the hub, not of the agent:
// the hub hands it the caller with each tool call (CallerMeta), so that a
// sub-agent the agent starts is still a child of the agent's session,
// under the depth limit, in its project.
type Caller struct {
	Env map[string]string `json:"env,omitempty"`
	Cwd string            `json:"cwd,omitempty"`
}

// CallerMeta is the _meta key of a tools/call under which the hub gives
// csa's MCP server (and only it: a server that names itself CSAServerName)
// the Caller.
const CallerMeta = "dev.csa/caller"

// CSAServerName is the name csa's MCP server gives in its initialize answer.
const CSAServerName = "csa"

const helloMethod = "csa-hub/hello"

// client is one connected agent.
type client struct {
	h   *Hub
	out *outbox

	mu        sync.Mutex
	hello     Hello
	view      []*backend // nil until first needed
	viewErr   error
	calls     map[string]*call // in flight, by the client's id
	cat       [2]*catalog      // by kind
	catGen    [2]int64
	uris      map[string]*backend // resources/read routes, resources.go
	templates []template
	subs      map[*backend]map[string]bool // resources subscribed to
}

// ServeConn serves one client until it hangs up.
func (h *Hub) ServeConn(rw io.ReadWriteCloser) {
	cl := &client{h: h, out: newOutbox(rw), calls: map[string]*call{},
		uris: map[string]*backend{}, subs: map[*backend]map[string]bool{}}
	h.mu.Lock()
	h.clients[cl] = struct{}{}
	h.mu.Unlock()
	defer cl.leave(rw)
	r := newReader(rw)
	for first := true; ; first = false {
		m, err := r.next()
		if rerr, ok := err.(*jsonrpc.Error); ok {
			cl.out.send(&msg{ID: jsonrpc.Null(), Error: rerr})
			continue
		}
		if err == errTooLong {
			cl.out.send(errorReply(nil, jsonrpc.CodeInvalidRequest, "message longer than 64 MiB"))
			continue
		}
		if err != nil {
			return
		}
		if first {
			h.joined(cl, m)
		}
		if first && m.Method == helloMethod {
			var hello Hello
			_ = json.Unmarshal(m.Params, &hello)
			cl.mu.Lock() // the sweep reads it (scope.go)
			cl.hello = hello
			cl.mu.Unlock()
			continue
		}
		cl.handle(m)
	}
}

// leave cancels what the client still waits for and forgets it.
func (cl *client) leave(rw io.Closer) {
	h := cl.h
	h.mu.Lock()
	delete(h.clients, cl)
	h.mu.Unlock()
	h.left(cl)
	cl.mu.Lock()
	calls := make([]*call, 0, len(cl.calls))
	for _, c := range cl.calls {
		calls = append(calls, c)
	}
	cl.mu.Unlock()
	for _, c := range calls {
		c.b.cancel(c, json.RawMessage(`"client disconnected"`))
	}
	cl.unsubscribeAll()
	cl.out.close()
	<-cl.out.done
	rw.Close()
}

func (cl *client) handle(m *msg) {
	switch {
	case m.Method == "": // a response: the hub asks clients nothing
	case m.IsNotification():
		if m.Method == "notifications/cancelled" {
			cl.cancelled(m)
		}
	case m.Method == "initialize":
		cl.out.send(cl.initialize(m))
	case m.Method == StatusMethod:
		cl.out.send(resultReply(m.ID, cl.h.Report()))
	case m.Method == StopMethod:
		cl.stopRequested(m)
	case m.Method == "ping":
		cl.out.send(resultReply(m.ID, struct{}{}))
	case m.Method == "tools/list":
		cl.out.send(cl.listNamed(m, kindTools))
	case m.Method == "prompts/list":
		cl.out.send(cl.listNamed(m, kindPrompts))
	case m.Method == "tools/call":
		cl.reply(cl.callNamed(m, kindTools))
	case m.Method == "prompts/get":
		cl.reply(cl.callNamed(m, kindPrompts))
	case m.Method == "resources/read":
		cl.reply(cl.readResource(m))
	// Listing and subscribing wait for backends: not in the read loop,
	// which must stay free for cancellations.
	case m.Method == "resources/list":
		go cl.out.send(cl.listResources(m, "resources"))
	case m.Method == "resources/templates/list":
		go cl.out.send(cl.listResources(m, "resourceTemplates"))
	case m.Method == "resources/subscribe" || m.Method == "resources/unsubscribe":
		go cl.out.send(cl.subscribe(m))
	default:
		cl.out.send(errorReply(m.ID, jsonrpc.CodeMethodNotFound, "csa-mcp hub: method %s not supported", m.Method))
	}
}

// backends is the client's view, fixed on first use.
func (cl *client) backends() ([]*backend, error) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.view == nil && cl.viewErr == nil {
		cl.view, cl.viewErr = cl.h.view(cl.hello.Only, cl.hello.Project, cl.hello.scope())
	}
	return cl.view, cl.viewErr
}

func (cl *client) sees(b *backend) bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return slices.Contains(cl.view, b)
}

// reply sends an immediate answer (nil: the answer comes later).
func (cl *client) reply(m *msg) {
	if m != nil {
		cl.out.send(m)
	}
}

func (cl *client) forget(c *call) {
	cl.mu.Lock()
	if cl.calls[string(c.id)] == c {
		delete(cl.calls, string(c.id))
	}
	cl.mu.Unlock()
}

// cancelled passes the client's cancellation to the call's backend.
func (cl *client) cancelled(m *msg) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    json.RawMessage `json:"reason"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	cl.mu.Lock()
	c := cl.calls[string(p.RequestID)]
	cl.mu.Unlock()
	if c != nil {
		c.b.cancel(c, p.Reason)
	}
}
