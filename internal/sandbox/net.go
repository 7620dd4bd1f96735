package sandbox

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"

	"github.com/csa-dev/csa/internal/egress"
)

// NetABI is the first Landlock ABI with TCP rules.
const NetABI = 4

// NetRequest is what a run's network may reach.
type NetRequest struct {
	// Endpoints are the URLs of the tool's model endpoints (its
	// configuration's): those on loopback are reached directly, the
	// others through the proxy.
	Endpoints []string
	// Hosts are more egress allow rules: the tool's well-known API hosts
	// and sandbox.allow_hosts.
	Hosts []string
	// Proxy is the parent's egress proxy (127.0.0.1:PORT) when csa runs
	// inside a confined run: the parent's Landlock domain lets nothing
	// else out, so the run uses it rather than starting its own.
	Proxy string
}

// decideNet fills p's network rules from r.
func (p *Policy) decideNet(r NetRequest) error {
	var hosts []string
	for _, e := range r.Endpoints {
		host, port, err := endpoint(e)
		if err != nil {
			return err
		}
		if ips := loopback(host); ips != nil {
			p.ConnectPorts = appendNew(p.ConnectPorts, port)
			for _, ip := range ips {
				// The proxy's loopback guard lets an IP rule through: a
				// program that does send its model requests to the proxy.
				hosts = appendNew(hosts, net.JoinHostPort(ip, strconv.Itoa(int(port))))
			}
			continue
		}
		hosts = appendNew(hosts, net.JoinHostPort(host, strconv.Itoa(int(port))))
	}
	for _, h := range r.Hosts {
		hosts = appendNew(hosts, h)
	}
	if _, err := egress.ParseRules(hosts); err != nil {
		return fmt.Errorf("allow_hosts: %w", err)
	}
	p.AllowHosts = hosts
	if r.Proxy != "" {
		if _, err := ProxyPort(r.Proxy); err != nil {
			return err
		}
		p.Proxy, p.ProxyInherited = r.Proxy, true
	}
	return nil
}

// endpoint is the host and port a model endpoint's URL connects to.
func endpoint(raw string) (string, uint16, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "", 0, fmt.Errorf("model endpoint %q is not a URL with a host", raw)
	}
	port := map[string]uint16{"http": 80, "https": 443, "ws": 80, "wss": 443}[u.Scheme]
	if s := u.Port(); s != "" {
		n, err := strconv.ParseUint(s, 10, 16)
		if err != nil || n == 0 {
			return "", 0, fmt.Errorf("model endpoint %q: bad port", raw)
		}
		port = uint16(n)
	}
	if port == 0 {
		return "", 0, fmt.Errorf("model endpoint %q: no port for scheme %q", raw, u.Scheme)
	}
	return u.Hostname(), port, nil
}

// loopback is the addresses of host when it is on loopback (localhost
// names both), nil otherwise.
func loopback(host string) []string {
	if host == "localhost" {
		return []string{"127.0.0.1", "::1"}
	}
	if a, err := netip.ParseAddr(host); err == nil && a.IsLoopback() {
		return []string{a.Unmap().String()}
	}
	return nil
}

// ProxyPort is the port of a proxy address 127.0.0.1:PORT.
func ProxyPort(addr string) (uint16, error) {
	host, port, err := net.SplitHostPort(addr)
	if err == nil && loopback(host) != nil {
		if n, err := strconv.ParseUint(port, 10, 16); err == nil && n > 0 {
			return uint16(n), nil
		}
	}
	return 0, fmt.Errorf("egress proxy %q is not a loopback host:port", addr)
}

// Ports are the TCP ports the program may connect to: its model servers
// on loopback and the proxy's.
func (p *Policy) Ports() []uint16 {
	ports := slices.Clone(p.ConnectPorts)
	if port, err := ProxyPort(p.Proxy); err == nil {
		ports = appendNew(ports, port)
	}
	return ports
}

// WithProxy is p with its own proxy at addr; p itself is not changed.
func (p *Policy) WithProxy(addr string) *Policy {
	q := *p
	q.Proxy, q.ProxyInherited = addr, false
	return &q
}

// ProxyEnv is the environment that sends the program's traffic to the
// proxy at addr: the proxy variables in both cases (programs read one or
// the other), loopback excluded (reached directly, as far as its ports
// are allowed).
func ProxyEnv(addr string) []string {
	u := "http://" + addr
	var env []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		env = append(env, k+"="+u)
	}
	return append(env, "NO_PROXY="+noProxy, "no_proxy="+noProxy)
}

const noProxy = "localhost,127.0.0.1,::1"

func appendNew[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// CheckHosts reports the first allow rule of hosts that is not one.
func CheckHosts(hosts []string) error {
	_, err := egress.ParseRules(hosts)
	return err
}
