package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// kind is a list the hub merges across backends under collision-only
// server__name renames: tools or prompts.
type kind int

const (
	kindTools kind = iota
	kindPrompts
)

type kindInfo struct {
	capability, list, field, changed string
}

var kinds = [...]kindInfo{
	kindTools:   {"tools", "tools/list", "tools", "notifications/tools/list_changed"},
	kindPrompts: {"prompts", "prompts/list", "prompts", "notifications/prompts/list_changed"},
}

// lists are a backend's tools and prompts: the running instance's (live,
// dropped on list_changed and when the instance ends) and the last ones
// learned (known: they outlive the instance, so that listing does not
// restart a stopped server, and come from disk for lazy servers).
type lists struct {
	live    [2][]json.RawMessage
	liveOK  [2]bool
	ver     [2]int // bumped by list_changed
	known   [2][]json.RawMessage
	knownOK [2]bool
}

// forgetLive drops the live lists (b.mu held).
func (b *backend) forgetLive() { b.liveOK = [2]bool{} }

// offers reports whether the server's initialize result (known) has
// capability; unknown before its first start.
func (b *backend) offers(capability string) (offers, known bool) {
	if b.init == nil {
		return false, false
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(b.init, &res)
	_, ok := res.Capabilities[capability]
	return ok, true
}

// list returns the backend's tools or prompts. A stopped backend answers
// from what is known, and starts only when nothing is.
func (b *backend) list(ctx context.Context, k kind) ([]json.RawMessage, error) {
	info := kinds[k]
	b.mu.Lock()
	c := b.conn
	offers, known := b.offers(info.capability)
	switch {
	case c != nil && b.liveOK[k]:
		defer b.mu.Unlock()
		return b.live[k], nil
	case c == nil && known && !offers:
		b.mu.Unlock()
		return nil, nil
	case c == nil && b.knownOK[k]:
		defer b.mu.Unlock()
		return b.known[k], nil
	}
	b.mu.Unlock()
	c, err := b.ensure(ctx)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	offers, _ = b.offers(info.capability)
	live, ok, ver := b.live[k], b.liveOK[k], b.ver[k]
	b.mu.Unlock()
	switch {
	case !offers:
		return nil, nil
	case ok:
		return live, nil
	}
	all, err := b.listAll(ctx, c, info.list, info.field)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	changed := b.knownOK[k] && !sameList(b.known[k], all)
	if b.conn == c && b.ver[k] == ver { // no list_changed meanwhile
		b.live[k], b.liveOK[k] = all, true
		b.known[k], b.knownOK[k] = all, true
	}
	b.mu.Unlock()
	if changed {
		// Clients may hold the list of an earlier instance, or of the disk.
		b.hub.gen.Add(1)
		b.hub.fanOut(b, info.changed, nil)
	}
	if k == kindTools {
		b.saveKnown()
	}
	return all, nil
}

// listAll follows a list method's pages to the end.
func (b *backend) listAll(ctx context.Context, c *bconn, method, field string) ([]json.RawMessage, error) {
	var all []json.RawMessage
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := b.roundTrip(ctx, c, method, params)
		if err != nil {
			return nil, err
		}
		var page map[string]json.RawMessage
		var items []json.RawMessage
		if err := json.Unmarshal(res, &page); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if err := json.Unmarshal(page[field], &items); len(page[field]) > 0 && err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		all = append(all, items...)
		next := ""
		_ = json.Unmarshal(page["nextCursor"], &next)
		if next == "" {
			return all, nil
		}
		cursor = next
	}
}

// listChanged is the server's list_changed: the live list is stale, and
// every client that sees the server is told.
func (b *backend) listChanged(k kind) {
	b.mu.Lock()
	b.liveOK[k] = false
	b.ver[k]++
	b.mu.Unlock()
	b.hub.gen.Add(1)
	b.hub.fanOut(b, kinds[k].changed, nil)
}

func sameList(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		var x, y bytes.Buffer
		if json.Compact(&x, a[i]) != nil || json.Compact(&y, b[i]) != nil || !bytes.Equal(x.Bytes(), y.Bytes()) {
			return false
		}
	}
	return true
}
