package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// A project-scoped instance lives for its project's clients. Once none
// has seen it for its idle time (idle_ttl, else the hub's idle exit) it is
// stopped, as after idle_ttl; once its project directory is gone it is
// stopped at once and, when no client sees it, forgotten, with what the
// hub kept of that project's configuration. Without this a hub that never
// idles (a worker's, whose runs keep coming) kept one instance for every
// project that ever connected, long after the projects were gone.

// sweepEvery is how often the hub looks at its project-scoped instances
// and the projects it has seen.
const sweepEvery = 2 * time.Second

// watchProjects starts the sweep once a client names a project (h.mu
// held); it runs until the hub closes.
func (h *Hub) watchProjects() {
	if h.sweeping {
		return
	}
	h.sweeping = true
	go func() {
		t := time.NewTicker(sweepEvery)
		defer t.Stop()
		for {
			select {
			case <-h.done:
				return
			case now := <-t.C:
				h.sweep(now)
			}
		}
	}()
}

// sweep stops the project-scoped instances no client has seen for their
// idle time or whose directory is gone, and forgets the projects that are
// gone.
func (h *Hub) sweep(now time.Time) {
	type scoped struct {
		key backendKey
		b   *backend
	}
	h.mu.Lock()
	var bs []scoped
	for k, b := range h.backends {
		if k.project != "" {
			bs = append(bs, scoped{k, b})
		}
	}
	var projects []string
	for p := range h.current {
		if p != "" {
			projects = append(projects, p)
		}
	}
	cls := h.clientList()
	hubIdle := h.idle.after
	h.mu.Unlock()
	for _, s := range bs {
		seen, gone := seenBy(cls, s.b), dirGone(s.key.project)
		unseen := s.b.unseenFor(now, seen)
		switch {
		case gone && !seen:
			h.forget(s.key, s.b, "its project directory is gone")
		case gone:
			s.b.stopUnused("its project directory is gone")
		default:
			ttl := s.b.cfg.IdleTTL.Std()
			if ttl <= 0 {
				ttl = hubIdle
			}
			if ttl > 0 && unseen >= ttl {
				s.b.stopUnused(fmt.Sprintf("no client for %v", ttl))
			}
		}
	}
	for _, p := range projects {
		if dirGone(p) && !projectOfAny(cls, p) {
			h.forgetProject(p)
		}
	}
}

// clientList is the connected clients (h.mu held).
func (h *Hub) clientList() []*client {
	cls := make([]*client, 0, len(h.clients))
	for c := range h.clients {
		cls = append(cls, c)
	}
	return cls
}

func seenBy(cls []*client, b *backend) bool {
	for _, c := range cls {
		if c.sees(b) {
			return true
		}
	}
	return false
}

// projectOfAny: a client's configuration comes from project p.
func projectOfAny(cls []*client, p string) bool {
	for _, c := range cls {
		c.mu.Lock()
		mine := c.hello.Project == p
		c.mu.Unlock()
		if mine {
			return true
		}
	}
	return false
}

// dirGone: dir, an absolute path, no longer exists.
func dirGone(dir string) bool {
	if !filepath.IsAbs(dir) {
		return false
	}
	_, err := os.Stat(dir)
	return errors.Is(err, fs.ErrNotExist)
}

// unseenFor is how long no client has seen b, as sweeps observe it: from
// the first sweep that found it unseen.
func (b *backend) unseenFor(now time.Time, seen bool) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case seen:
		b.unseenSince = time.Time{}
	case b.unseenSince.IsZero():
		b.unseenSince = now
	}
	if seen {
		return 0
	}
	return now.Sub(b.unseenSince)
}

// stopUnused stops b's running instance, idle, unless a call is at it.
func (b *backend) stopUnused(why string) {
	b.mu.Lock()
	if b.conn == nil || b.busy() {
		b.mu.Unlock()
		return
	}
	pid := b.conn.link.pid()
	b.stopIdle()
	fmt.Fprintf(b.hub.logw, "%s csa-mcp hub: %s (pid %d): %s: stopped\n", LogTime(), b.label(), pid, why)
}

// forget stops b and drops it from the hub, unless the key names another
// backend by now.
func (h *Hub) forget(key backendKey, b *backend, why string) {
	h.mu.Lock()
	mine := h.backends[key] == b
	if mine {
		delete(h.backends, key)
	}
	h.mu.Unlock()
	if !mine {
		return
	}
	fmt.Fprintf(h.logw, "%s csa-mcp hub: %s: %s: stopped and forgotten\n", LogTime(), b.label(), why)
	b.stop()
	close(b.forgotten)
}

// forgetProject drops what the hub keeps of a project that is gone: the
// backends its configuration gave and the configuration itself.
func (h *Hub) forgetProject(p string) {
	h.mu.Lock()
	delete(h.current, p)
	h.mu.Unlock()
	if f, ok := h.src.(interface{ forget(project string) }); ok {
		f.forget(p)
	}
	go h.retire()
}
