package hub

import (
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// status is the backend as `status` shows it.
func (b *backend) status() BackendStatus {
	starting := !b.startMu.TryLock()
	if !starting {
		b.startMu.Unlock()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s := BackendStatus{Name: b.name, Project: b.project, Transport: "stdio", State: b.state,
		InFlight: b.inflight, Queued: len(b.waiting), Calls: b.calls, Errors: b.errors, Restarts: b.restarts,
		Starts: b.starts, IdleStops: b.idleStops, Reinits: b.reinits, Sandbox: b.layer}
	if b.cfg.URL != "" {
		s.Transport = "http"
	}
	switch {
	case b.conn != nil:
		s.State = StateRunning
		if s.PID = b.conn.link.pid(); s.PID != 0 {
			s.RSS, _ = proc.RSS(s.PID)
		}
	case b.state == stateExited && time.Now().Before(b.notBefore):
		s.State = StateBackoff
	case starting:
		s.State = StateStarting
	}
	return s
}
