package egress

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Rules is the allow list: the hosts a confined agent may reach.
// A rule is an exact host name ("api.anthropic.com"), a suffix
// ("*.example.com": its subdomains, not example.com itself), or an IP
// literal ("127.0.0.1", "::1"), each optionally with a port
// ("host:443", "[::1]:8080"). Names are matched case-insensitively.
type Rules struct {
	list []rule
}

type rule struct {
	text   string
	name   string     // exact name, or the domain of a suffix rule
	suffix bool       // "*.name"
	ip     netip.Addr // valid for an IP rule
	port   int        // 0: any port
}

// ParseRules reads allow rules, refusing what is not a host (a URL, a
// path, a wildcard in the middle).
func ParseRules(texts []string) (Rules, error) {
	var rs Rules
	for _, t := range texts {
		r, err := parseRule(t)
		if err != nil {
			return Rules{}, err
		}
		rs.list = append(rs.list, r)
	}
	return rs, nil
}

func parseRule(text string) (rule, error) {
	bad := func(why string) (rule, error) {
		return rule{}, fmt.Errorf("allow rule %q: %s (want host, *.domain or an IP, optionally :port)", text, why)
	}
	s := strings.TrimSpace(text)
	if s == "" {
		return bad("empty")
	}
	if strings.Contains(s, "/") {
		return bad("a URL or path, not a host")
	}
	r := rule{text: s}
	host := s
	if ip, err := netip.ParseAddr(s); err == nil { // bare IPv6 has colons but no port
		host = ip.String()
	} else if strings.Contains(s, ":") {
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			return bad(err.Error())
		}
		port, err := strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return bad("port " + p + " is not 1-65535")
		}
		host, r.port = h, port
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return bad("zoned address")
		}
		r.ip = ip.Unmap()
		return r, nil
	}
	name := normalName(host)
	if rest, ok := strings.CutPrefix(name, "*."); ok {
		r.suffix, name = true, rest
	}
	if name == "" || strings.ContainsAny(name, "* \t[]@") {
		return bad("not a host name")
	}
	r.name = name
	return r, nil
}

// normalName is a host name as rules compare it: lower case, no
// trailing dot (so "API.Example.com." is "api.example.com").
func normalName(host string) string {
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

func (r rule) portMatches(port int) bool { return r.port == 0 || r.port == port }

// matchName is the rule allowing a host name on a port, if any.
func (rs Rules) matchName(name string, port int) (string, bool) {
	for _, r := range rs.list {
		if r.ip.IsValid() || !r.portMatches(port) {
			continue
		}
		if (!r.suffix && name == r.name) || (r.suffix && strings.HasSuffix(name, "."+r.name)) {
			return r.text, true
		}
	}
	return "", false
}

// matchIP is the IP rule naming an address on a port, if any.
func (rs Rules) matchIP(ip netip.Addr, port int) (string, bool) {
	ip = ip.Unmap()
	for _, r := range rs.list {
		if r.ip.IsValid() && r.ip == ip && r.portMatches(port) {
			return r.text, true
		}
	}
	return "", false
}
