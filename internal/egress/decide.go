package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
)

// The protocols a request came in by, as Decision.Proto names them.
const (
	ProtoConnect = "connect" // HTTP CONNECT tunnel (HTTPS and anything else)
	ProtoHTTP    = "http"    // plain absolute-URI HTTP request, forwarded
	ProtoSOCKS5  = "socks5"  // SOCKS5 CONNECT
)

// Decision is what the proxy did with one connection request: the host
// and port asked for, whether policy allowed it and by which rule, and
// an error (why it was refused, or why an allowed one failed).
type Decision struct {
	Host    string
	Port    int
	Allowed bool
	Rule    string
	Proto   string
	Err     error
}

// DeniedError is a refusal by policy: the host is not in the allow list,
// or its name resolves only to non-public addresses no IP rule names.
type DeniedError struct {
	Host string
	Port int
	Addr netip.Addr // the non-public address the name resolved to, if that was why
	Kind string     // what kind of address Addr is (loopback, private, ...)
}

func (e *DeniedError) Error() string {
	hp := net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
	if e.Addr.IsValid() {
		return fmt.Sprintf("csa sandbox: host %s resolves to %s, a %s address not in the allow list (sandbox.allow_hosts)", hp, e.Addr, e.Kind)
	}
	return fmt.Sprintf("csa sandbox: host %s is not in the allow list (sandbox.allow_hosts)", hp)
}

// Resolver looks host names up; *net.Resolver is one. Tests give their
// own to map names to the test's servers.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// decide applies the policy to host:port: the decision and, when
// allowed, the addresses to dial. A name no rule allows is never looked
// up, so a refused name leaks nothing through DNS; the addresses
// returned are exactly the ones checked (no second lookup to rebind).
func (p *Proxy) decide(ctx context.Context, proto, host string, port int) (Decision, []netip.AddrPort) {
	d := Decision{Host: host, Port: port, Proto: proto}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		rule, ok := p.rules.matchIP(ip, port)
		if !ok {
			d.Err = &DeniedError{Host: host, Port: port}
			return d, nil
		}
		d.Allowed, d.Rule = true, rule
		return d, []netip.AddrPort{netip.AddrPortFrom(ip, uint16(port))}
	}
	name := normalName(host)
	rule, ok := p.rules.matchName(name, port)
	if !ok {
		d.Err = &DeniedError{Host: host, Port: port}
		return d, nil
	}
	d.Rule = rule
	addrs, err := p.resolver.LookupNetIP(ctx, "ip", name)
	if err != nil {
		d.Allowed, d.Err = true, fmt.Errorf("csa sandbox: cannot resolve %s: %w", host, err)
		return d, nil
	}
	var targets []netip.AddrPort
	var refused *DeniedError
	for _, a := range addrs {
		a = a.Unmap()
		if kind := localKind(a); kind != "" {
			if _, named := p.rules.matchIP(a, port); !named {
				refused = &DeniedError{Host: host, Port: port, Addr: a, Kind: kind}
				continue
			}
		}
		targets = append(targets, netip.AddrPortFrom(a, uint16(port)))
	}
	if len(targets) == 0 {
		if refused == nil {
			d.Allowed, d.Err = true, fmt.Errorf("csa sandbox: %s has no address", host)
			return d, nil
		}
		d.Err = refused
		return d, nil
	}
	d.Allowed = true
	return d, targets
}

// dial decides and connects, reporting the decision once: a refused
// request's DeniedError, or the allowed one's dial error if all its
// addresses failed.
func (p *Proxy) dial(ctx context.Context, proto, host string, port int) (net.Conn, error) {
	d, targets := p.decide(ctx, proto, host, port)
	if d.Err != nil {
		p.report(d)
		return nil, d.Err
	}
	c, err := p.dialTargets(ctx, targets)
	d.Err = err
	p.report(d)
	return c, err
}

func (p *Proxy) dialTargets(ctx context.Context, targets []netip.AddrPort) (net.Conn, error) {
	var errs []error
	for _, t := range targets {
		c, err := p.dialer.DialContext(ctx, "tcp", t.String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func (p *Proxy) report(d Decision) {
	if p.onDecision != nil {
		p.onDecision(d)
	}
}

// splitPort is host and port from "host:port", the port required.
func splitPort(hostport string) (string, int, error) {
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("port %q is not 1-65535", p)
	}
	return host, port, nil
}
