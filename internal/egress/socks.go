package egress

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/netip"

	socks5 "github.com/armon/go-socks5"
)

// socksVersion is the first byte of every SOCKS5 greeting.
const socksVersion = 5

// The SOCKS5 side is armon/go-socks5 (the maintained things-go fork is
// not served by the module proxy) with csa's policy in its hooks: names
// are not looked up before the rule set runs (a refused name must not
// reach DNS), the rule set decides and pins the checked addresses in
// the context, and the dialer connects to exactly those. A refusal is
// the protocol's "connection not allowed by ruleset" reply.
func newSOCKS(p *Proxy, logger *log.Logger) (*socks5.Server, error) {
	return socks5.New(&socks5.Config{
		Resolver: deferredResolver{},
		Rules:    socksRules{p},
		Dial:     p.dialSOCKS,
		Logger:   logger,
	})
}

// deferredResolver leaves names unresolved for socksRules to decide on.
type deferredResolver struct{}

func (deferredResolver) Resolve(ctx context.Context, _ string) (context.Context, net.IP, error) {
	return ctx, nil, nil
}

type socksRules struct{ p *Proxy }

type pinnedKey struct{}

type pinned struct {
	decision Decision
	targets  []netip.AddrPort
}

func (r socksRules) Allow(ctx context.Context, req *socks5.Request) (context.Context, bool) {
	host := req.DestAddr.FQDN
	if host == "" {
		host = req.DestAddr.IP.String()
	}
	if req.Command != socks5.ConnectCommand { // only CONNECT is served: no BIND, no UDP
		r.p.report(Decision{Host: host, Port: req.DestAddr.Port, Proto: ProtoSOCKS5,
			Err: fmt.Errorf("csa sandbox: SOCKS5 command %d is not served, only CONNECT", req.Command)})
		return ctx, false
	}
	d, targets := r.p.decide(ctx, ProtoSOCKS5, host, req.DestAddr.Port)
	if !d.Allowed {
		r.p.report(d)
		return ctx, false
	}
	// An allowed name that does not resolve fails in the dialer, so the
	// client hears "host unreachable" rather than a refusal.
	return context.WithValue(ctx, pinnedKey{}, pinned{decision: d, targets: targets}), true
}

func (p *Proxy) dialSOCKS(ctx context.Context, _, _ string) (net.Conn, error) {
	pin, ok := ctx.Value(pinnedKey{}).(pinned)
	if !ok {
		return nil, errors.New("csa sandbox: SOCKS dial without a decision")
	}
	if pin.decision.Err != nil {
		p.report(pin.decision)
		return nil, pin.decision.Err
	}
	c, err := p.dialTargets(ctx, pin.targets)
	pin.decision.Err = err
	p.report(pin.decision)
	return c, err
}
