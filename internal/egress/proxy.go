// Package egress is csa's filtering egress proxy: the only way out of a
// confined agent (Landlock lets it connect to the proxy's port and its
// model servers' only). The agent's programs reach it through
// HTTP_PROXY, HTTPS_PROXY and ALL_PROXY; it serves HTTP CONNECT tunnels,
// plain absolute-URI HTTP requests and SOCKS5 CONNECT on one listener
// (127.0.0.1 in the run's supervisor), lets through only the hosts the
// allow list names, and reports every decision so csa can record the
// refusals.
package egress

import (
	"errors"
	"io"
	"log"
	"net"
	"sync"
	"time"

	socks5 "github.com/armon/go-socks5"
)

// Config is what a Proxy allows and whom it tells.
type Config struct {
	// Allow is the allow list (see Rules).
	Allow []string
	// OnDecision, if set, is called once per connection request, from the
	// request's goroutine (so concurrently).
	OnDecision func(Decision)
	// Resolver looks names up; nil means net.DefaultResolver.
	Resolver Resolver
}

// Proxy is the egress proxy. Serve it on any number of listeners; Close
// ends it and every connection it holds.
type Proxy struct {
	rules      Rules
	onDecision func(Decision)
	resolver   Resolver
	dialer     net.Dialer

	socks *socks5.Server

	mu        sync.Mutex
	closed    bool
	listeners map[net.Listener]struct{}
	conns     map[net.Conn]struct{}
}

// New is a proxy for cfg, or the first bad allow rule.
func New(cfg Config) (*Proxy, error) {
	rules, err := ParseRules(cfg.Allow)
	if err != nil {
		return nil, err
	}
	p := &Proxy{
		rules:      rules,
		onDecision: cfg.OnDecision,
		resolver:   cfg.Resolver,
		dialer:     net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second},
		listeners:  map[net.Listener]struct{}{},
		conns:      map[net.Conn]struct{}{},
	}
	if p.resolver == nil {
		p.resolver = net.DefaultResolver
	}
	quiet := log.New(io.Discard, "", 0)
	p.socks, err = newSOCKS(p, quiet)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Serve accepts connections on l until l or the proxy is closed, telling
// SOCKS5 (its first byte is the version, 5) from HTTP.
func (p *Proxy) Serve(l net.Listener) error {
	if !p.track(l, nil) {
		return net.ErrClosed
	}
	defer p.untrack(l, nil)
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go p.route(c)
	}
}

func (p *Proxy) route(c net.Conn) {
	if !p.track(nil, c) {
		c.Close()
		return
	}
	first := make([]byte, 1)
	if _, err := io.ReadFull(c, first); err != nil {
		p.untrack(nil, c)
		c.Close()
		return
	}
	pc := &prefixConn{Conn: c, prefix: first, done: func() { p.untrack(nil, c) }}
	if first[0] == socksVersion {
		p.socks.ServeConn(pc)
		pc.Close()
		return
	}
	p.serveHTTP1(pc)
}

// Close stops every listener and connection and ends the proxy.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	ls, cs := p.listeners, p.conns
	p.listeners, p.conns = map[net.Listener]struct{}{}, map[net.Conn]struct{}{}
	p.mu.Unlock()
	for l := range ls {
		l.Close()
	}
	for c := range cs {
		c.Close()
	}
	return nil
}

func (p *Proxy) track(l net.Listener, c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	if l != nil {
		p.listeners[l] = struct{}{}
	}
	if c != nil {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(l net.Listener, c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.listeners, l)
	delete(p.conns, c)
}

// prefixConn gives back the byte read to tell the protocols apart, and
// forgets the connection once closed.
type prefixConn struct {
	net.Conn
	prefix []byte
	once   sync.Once
	done   func()
}

func (c *prefixConn) Read(b []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(b, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

func (c *prefixConn) Close() error {
	c.once.Do(c.done)
	return c.Conn.Close()
}

// CloseWrite half-closes, so a tunnel passes the end of one direction on.
func (c *prefixConn) CloseWrite() error { return closeWrite(c.Conn) }
