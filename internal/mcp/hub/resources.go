package hub

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/csa-dev/csa/internal/jsonrpc"
)

// Resources pass through unrenamed: a URI names itself. The hub routes
// one by the backend that listed it to this client (or named it in a tool
// result), else by the first resource template it matches, else to the
// only server with resources. Two servers listing the same URI: the first
// to list it serves it.

// pageCursor is the hub's pagination cursor: the backend it continues and
// that backend's own cursor ("" for its first page). Pages never mix
// backends.
type pageCursor struct {
	S string `json:"s"`
	C string `json:"c,omitempty"`
}

func (p pageCursor) String() string {
	b, _ := json.Marshal(p)
	return base64.RawURLEncoding.EncodeToString(b)
}

func parseCursor(s string) (pageCursor, error) {
	var p pageCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &p) != nil || p.S == "" {
		return p, fmt.Errorf("invalid cursor %q", s)
	}
	return p, nil
}

// capsOf reads the capabilities the hub merges from an initialize result.
func capsOf(init json.RawMessage) (resources, subscribe, prompts bool) {
	var res struct {
		Capabilities struct {
			Resources *struct {
				Subscribe bool `json:"subscribe"`
			} `json:"resources"`
			Prompts json.RawMessage `json:"prompts"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(init, &res) != nil {
		return false, false, false
	}
	c := res.Capabilities
	return c.Resources != nil, c.Resources != nil && c.Resources.Subscribe, c.Prompts != nil
}

// resourceServers are the client's backends with resources.
func (cl *client) resourceServers() ([]*backend, error) {
	bs, err := cl.backends()
	if err != nil {
		return nil, err
	}
	var out []*backend
	for _, b := range bs {
		b.mu.Lock()
		ok, _, _ := capsOf(b.init)
		b.mu.Unlock()
		if ok {
			out = append(out, b)
		}
	}
	return out, nil
}

// listResources answers resources/list or resources/templates/list one
// backend's page at a time.
func (cl *client) listResources(m *msg, field string) *msg {
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(m.Params, &p)
	srcs, err := cl.resourceServers()
	if err != nil {
		return errorReply(m.ID, jsonrpc.CodeInvalidParams, "%v", err)
	}
	i, cursor := 0, ""
	if p.Cursor != "" {
		pc, err := parseCursor(p.Cursor)
		if err != nil {
			return errorReply(m.ID, jsonrpc.CodeInvalidParams, "%v", err)
		}
		for i < len(srcs) && srcs[i].name != pc.S {
			i++
		}
		if i == len(srcs) {
			return errorReply(m.ID, jsonrpc.CodeInvalidParams, "invalid cursor: no server %q here", pc.S)
		}
		cursor = pc.C
	}
	ctx := cl.h.ctx
	for ; i < len(srcs); i, cursor = i+1, "" {
		b := srcs[i]
		items, next, err := b.page(ctx, m.Method, field, cursor)
		if err != nil {
			fmt.Fprintf(cl.h.logw, "csa-mcp hub: %s: %s: %v\n", b.label(), m.Method, err)
			continue
		}
		cl.learn(b, field, items)
		out := map[string]any{field: items}
		switch {
		case next != "":
			out["nextCursor"] = pageCursor{S: b.name, C: next}.String()
		case i+1 < len(srcs):
			if len(items) == 0 {
				continue // no empty pages between servers
			}
			out["nextCursor"] = pageCursor{S: srcs[i+1].name}.String()
		}
		return resultReply(m.ID, out)
	}
	return resultReply(m.ID, map[string]any{field: []any{}})
}

// page is one page of a list method of the backend.
func (b *backend) page(ctx context.Context, method, field, cursor string) ([]json.RawMessage, string, error) {
	c, err := b.ensure(ctx)
	if err != nil {
		return nil, "", err
	}
	params := map[string]any{}
	if cursor != "" {
		params["cursor"] = cursor
	}
	res, err := b.roundTrip(ctx, c, method, params)
	if err != nil {
		return nil, "", err
	}
	var page struct {
		NextCursor string `json:"nextCursor"`
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(res, &fields); err != nil {
		return nil, "", err
	}
	items := []json.RawMessage{}
	if raw := fields[field]; len(raw) > 0 {
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, "", err
		}
	}
	_ = json.Unmarshal(res, &page)
	return items, page.NextCursor, nil
}

// template is a resource template a backend listed to the client.
type template struct {
	b    *backend
	text string
	re   *regexp.Regexp
}

// learn remembers which backend serves the URIs (or templates) it listed.
func (cl *client) learn(b *backend, field string, items []json.RawMessage) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	for _, raw := range items {
		var it struct {
			URI         string `json:"uri"`
			URITemplate string `json:"uriTemplate"`
		}
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		switch {
		case field == "resources" && it.URI != "":
			if _, ok := cl.uris[it.URI]; !ok {
				cl.uris[it.URI] = b
			}
		case it.URITemplate != "":
			known := slices.ContainsFunc(cl.templates, func(t template) bool { return t.b == b && t.text == it.URITemplate })
			if re := templateRegexp(it.URITemplate); re != nil && !known {
				cl.templates = append(cl.templates, template{b, it.URITemplate, re})
			}
		}
	}
}

// learnLinks remembers the resources a tool result names (resource links
// and embedded resources) as served by the tool's backend.
func (cl *client) learnLinks(b *backend, result json.RawMessage) {
	var res struct {
		Content []struct {
			Type     string `json:"type"`
			URI      string `json:"uri"`
			Resource struct {
				URI string `json:"uri"`
			} `json:"resource"`
		} `json:"content"`
	}
	if json.Unmarshal(result, &res) != nil {
		return
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	for _, c := range res.Content {
		uri := c.URI
		if c.Type == "resource" {
			uri = c.Resource.URI
		}
		if uri != "" {
			if _, ok := cl.uris[uri]; !ok {
				cl.uris[uri] = b
			}
		}
	}
}

// templateExpr is one {expression} of an RFC 6570 URI template.
var templateExpr = regexp.MustCompile(`\{([+#./;?&]?)[^}]*\}`)

// templateRegexp matches the URIs a template expands to: a simple
// expression stays within one path segment, reserved ({+x}, {#x})
// expansion may cross them, query forms match any query.
func templateRegexp(t string) *regexp.Regexp {
	var sb strings.Builder
	sb.WriteString("^")
	last := 0
	for _, loc := range templateExpr.FindAllStringSubmatchIndex(t, -1) {
		sb.WriteString(regexp.QuoteMeta(t[last:loc[0]]))
		op := ""
		if loc[3] > loc[2] {
			op = t[loc[2]:loc[3]]
		}
		switch op {
		case "+", "#":
			sb.WriteString(".*")
		case "?", "&":
			sb.WriteString(`([?&].*)?`)
		default:
			sb.WriteString(`[^/?#]*`)
		}
		last = loc[1]
	}
	sb.WriteString(regexp.QuoteMeta(t[last:]))
	sb.WriteString("$")
	re, err := regexp.Compile(sb.String())
	if err != nil {
		return nil
	}
	return re
}

// resourceBackend is the backend that serves uri for this client.
func (cl *client) resourceBackend(uri string) (*backend, error) {
	srcs, err := cl.resourceServers()
	if err != nil {
		return nil, err
	}
	cl.mu.Lock()
	b, ok := cl.uris[uri]
	if !ok {
		for _, t := range cl.templates {
			if t.re.MatchString(uri) {
				b, ok = t.b, true
				break
			}
		}
	}
	cl.mu.Unlock()
	switch {
	case ok:
		return b, nil
	case len(srcs) == 1:
		return srcs[0], nil
	case len(srcs) == 0:
		return nil, fmt.Errorf("no MCP server here offers resources")
	}
	return nil, fmt.Errorf("no MCP server is known to serve %q: list resources or resource templates first", uri)
}

// uriBackend reads a request's params.uri and finds the backend serving
// it; refused is the answer when it cannot.
func (cl *client) uriBackend(m *msg) (uri string, b *backend, refused *msg) {
	var p struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.URI == "" {
		return "", nil, errorReply(m.ID, jsonrpc.CodeInvalidParams, "%s needs params.uri", m.Method)
	}
	b, err := cl.resourceBackend(p.URI)
	if err != nil {
		return "", nil, errorReply(m.ID, jsonrpc.CodeInvalidParams, "%v", err)
	}
	return p.URI, b, nil
}

// readResource routes resources/read through the backend's queue, like
// a tool call.
func (cl *client) readResource(m *msg) *msg {
	_, b, refused := cl.uriBackend(m)
	if refused != nil {
		return refused
	}
	var params map[string]json.RawMessage
	_ = json.Unmarshal(m.Params, &params)
	return cl.forward(m, b, params)
}
