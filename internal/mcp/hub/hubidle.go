package hub

import (
	"fmt"
	"strings"
	"time"
)

// idleTimer closes the hub after a while with no client (SetIdleExit).
type idleTimer struct {
	after time.Duration // 0: never
	t     *time.Timer
	gen   int // which arming a firing timer belongs to
}

// SetIdleExit makes the hub close itself after d with no client (0:
// never). Call it before Serve.
func (h *Hub) SetIdleExit(d time.Duration) {
	h.mu.Lock()
	h.idle.after = d
	h.mu.Unlock()
}

// isHubRequest: status and stop requests are not clients; they neither
// keep the hub alive nor count in its report.
func isHubRequest(method string) bool {
	return method == StatusMethod || method == StopMethod
}

// joined counts cl as a client once its first message shows it is one.
func (h *Hub) joined(cl *client, first *msg) {
	if isHubRequest(first.Method) {
		return
	}
	h.mu.Lock()
	h.active[cl] = struct{}{}
	h.idle.gen++
	if h.idle.t != nil {
		h.idle.t.Stop()
		h.idle.t = nil
	}
	h.mu.Unlock()
}

// left forgets cl; the last client to leave arms the idle timer.
func (h *Hub) left(cl *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.active[cl]; !ok {
		return
	}
	delete(h.active, cl)
	if len(h.active) == 0 {
		h.armIdle()
	}
	if len(h.superseded()) > 0 {
		go h.retire()
	}
}

// armIdle starts the idle timer (h.mu held).
func (h *Hub) armIdle() {
	if h.idle.after <= 0 {
		return
	}
	h.idle.gen++
	gen, after := h.idle.gen, h.idle.after
	h.idle.t = time.AfterFunc(h.idle.after, func() {
		h.mu.Lock()
		idle := gen == h.idle.gen && len(h.active) == 0
		if idle && len(h.clients) > 0 {
			// A connection that has not said yet what it is (a bridge
			// about to say hello), or a status request: look again later.
			idle = false
			h.armIdle()
		}
		h.mu.Unlock()
		if idle {
			fmt.Fprintf(h.logw, "%s csa-mcp hub: no client for %v: exiting\n", LogTime(), after)
			h.Close()
		}
	})
}

// LogTime is the time at the head of the hub's own log lines.
func LogTime() string { return strings.Replace(time.Now().Format(time.DateTime), " ", "T", 1) }
