package runner

import (
	"net"
	"sync"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/egress"
	"github.com/csa-dev/csa/internal/events"
	"github.com/csa-dev/csa/internal/sandbox"
)

// egressProxy is a run's own egress proxy: up from before the program
// starts until it ends, in the supervisor (no other process).
type egressProxy struct {
	proxy *egress.Proxy
	// mu orders the refusals with the end: none is recorded once the
	// run's events are closing.
	mu     sync.Mutex
	closed bool
	denied int
}

// netConfine is pol as the program runs under it, and the environment
// that sends its traffic to the proxy: when pol confines the network and
// the run has no proxy of a parent's, the run's own is started here. A
// second start of the same turn (an ACP run falling back to the CLI)
// keeps the one proxy.
func (l *life) netConfine(pol *sandbox.Policy) (*sandbox.Policy, []string, error) {
	if !pol.NetConfined() {
		return pol, nil, nil
	}
	if !pol.ProxyInherited && l.egress == nil {
		p, err := egress.New(egress.Config{Allow: pol.AllowHosts, OnDecision: l.decided})
		if err != nil {
			return nil, nil, err
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			p.Close()
			return nil, nil, err
		}
		go p.Serve(ln)
		l.egress = &egressProxy{proxy: p}
		pol = pol.WithProxy(ln.Addr().String())
	} else if l.egress != nil {
		pol = l.policy
	}
	return pol, append(sandbox.ProxyEnv(pol.Proxy), csaenv.EgressProxy+"="+pol.Proxy), nil
}

// decided records a refusal of the proxy as a sandbox.denied event, and
// shows it to a person watching.
func (l *life) decided(d egress.Decision) {
	if d.Allowed {
		return
	}
	e := l.egress
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.denied++
	data := map[string]any{"host": d.Host, "port": d.Port, "proto": d.Proto, "operation": "connect"}
	if d.Err != nil {
		data["reason"] = d.Err.Error()
	}
	l.ev.Emit(events.SandboxDenied, data)
	if l.s.Denied != nil {
		l.s.Denied(d)
	}
}

// closeEgress stops the run's proxy once its program has ended, and
// returns how many connections it refused.
func (l *life) closeEgress() int {
	e := l.egress
	if e == nil {
		return 0
	}
	e.mu.Lock()
	first := !e.closed
	e.closed = true
	n := e.denied
	e.mu.Unlock()
	if first {
		e.proxy.Close()
	}
	return n
}
