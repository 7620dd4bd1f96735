package hub

import (
	"encoding/json"
	"fmt"

	"github.com/csa-dev/csa/internal/jsonrpc"
)

// catalog is the client's catalog of tools or prompts, rebuilt when a
// backend's lists may have changed.
func (cl *client) catalog(k kind) (*catalog, error) {
	bs, err := cl.backends()
	if err != nil {
		return nil, err
	}
	gen := cl.h.gen.Load()
	cl.mu.Lock()
	cat, ok := cl.cat[k], cl.cat[k] != nil && cl.catGen[k] == gen
	cl.mu.Unlock()
	if ok {
		return cat, nil
	}
	cat, errs := buildCatalog(cl.h.ctx, bs, k)
	for _, err := range errs {
		fmt.Fprintf(cl.h.logw, "csa-mcp hub: %v\n", err)
	}
	cl.mu.Lock()
	cl.cat[k], cl.catGen[k] = cat, gen
	cl.mu.Unlock()
	return cat, nil
}

// listNamed answers tools/list or prompts/list, whole (renames depend on
// every backend's list, so pages cannot be per backend).
func (cl *client) listNamed(m *msg, k kind) *msg {
	cat, err := cl.catalog(k)
	if err != nil {
		return errorReply(m.ID, jsonrpc.CodeInvalidParams, "%v", err)
	}
	defs := make([]json.RawMessage, 0, len(cat.names))
	for _, n := range cat.names {
		defs = append(defs, cat.tools[n].def)
	}
	return resultReply(m.ID, map[string]any{kinds[k].field: defs})
}

// callNamed routes tools/call or prompts/get to the backend whose tool or
// prompt the name is, under the backend's own name.
func (cl *client) callNamed(m *msg, k kind) *msg {
	var p map[string]json.RawMessage
	var name string
	if json.Unmarshal(m.Params, &p) != nil || json.Unmarshal(p["name"], &name) != nil {
		return errorReply(m.ID, jsonrpc.CodeInvalidParams, "%s needs params.name", m.Method)
	}
	cat, err := cl.catalog(k)
	if err != nil {
		return errorReply(m.ID, jsonrpc.CodeInvalidParams, "%v", err)
	}
	e, ok := cat.tools[name]
	if !ok {
		return errorReply(m.ID, jsonrpc.CodeInvalidParams, "unknown %s %q", kinds[k].field[:len(kinds[k].field)-1], name)
	}
	p["name"], _ = json.Marshal(e.tool)
	return cl.forward(m, e.b, p)
}

// forward queues a request for backend b with params (progress token
// rewritten here); the reply comes later (nil here) unless the request is
// refused at once.
func (cl *client) forward(m *msg, b *backend, p map[string]json.RawMessage) *msg {
	c := &call{cl: cl, id: m.ID, b: b, method: m.Method}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p["_meta"], &meta) == nil && len(meta["progressToken"]) > 0 {
		c.token = cl.h.progressToken(cl, meta["progressToken"])
		meta["progressToken"], _ = json.Marshal(c.token)
		p["_meta"], _ = json.Marshal(meta)
	}
	c.params, _ = json.Marshal(p)
	key := string(m.ID)
	cl.mu.Lock()
	_, dup := cl.calls[key]
	if !dup {
		cl.calls[key] = c
	}
	cl.mu.Unlock()
	if dup {
		cl.h.dropProgress(c.token)
		return errorReply(m.ID, jsonrpc.CodeInvalidRequest, "request id %s is already in use", key)
	}
	if err := b.enqueue(c); err != nil {
		cl.forget(c)
		cl.h.dropProgress(c.token)
		return errorReply(m.ID, codeBackend, "%v", err)
	}
	return nil
}
