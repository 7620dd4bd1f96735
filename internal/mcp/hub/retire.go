package hub

import (
	"fmt"
	"maps"
)

// A changed configuration makes new backends (their key holds the
// definition); the old ones serve the clients that still see them and are
// retired, stopped and forgotten, once none does. So are those only a
// project that is gone gave (scope.go). Without this a hub that
// never idles would keep every superseded server running.

// resolved records the backends a resolution of project's configuration
// gives (h.mu held): these are current. It reports whether they changed.
func (h *Hub) resolved(project string, keys map[backendKey]bool) bool {
	if h.current == nil {
		h.current = map[string]map[backendKey]bool{}
	}
	changed := !maps.Equal(h.current[project], keys)
	h.current[project] = keys
	return changed
}

// superseded are the backends no current resolution gives (h.mu held).
func (h *Hub) superseded() []*backend {
	var out []*backend
	for k, b := range h.backends {
		if !h.isCurrent(k) {
			out = append(out, b)
		}
	}
	return out
}

func (h *Hub) isCurrent(k backendKey) bool {
	for _, keys := range h.current {
		if keys[k] {
			return true
		}
	}
	return false
}

// retire stops the superseded backends no client sees. A client's view
// only ever holds current backends when it is made, so one retired here
// is in no view being made.
func (h *Hub) retire() {
	h.mu.Lock()
	cands := h.superseded()
	cls := h.clientList()
	h.mu.Unlock()
	var unseen []*backend
	for _, b := range cands {
		if !seenBy(cls, b) {
			unseen = append(unseen, b)
		}
	}
	var gone []*backend
	h.mu.Lock()
	for _, b := range unseen {
		for k, kb := range h.backends {
			if kb == b && !h.isCurrent(k) {
				delete(h.backends, k)
				gone = append(gone, b)
			}
		}
	}
	h.mu.Unlock()
	for _, b := range gone {
		fmt.Fprintf(h.logw, "%s csa-mcp hub: %s: given by no configuration in use (changed, or its project gone) and seen by no client: stopped\n",
			LogTime(), b.label())
		b.stop()
		close(b.forgotten)
	}
}
