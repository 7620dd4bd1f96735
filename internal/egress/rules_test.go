package egress

import (
	"context"
	"net/netip"
	"strings"
	"testing"
)

func TestParseRulesRefusesWhatIsNotAHost(t *testing.T) {
	for _, bad := range []string{"", "https://api.example.com", "api.example.com/v1", "a*.example.com", "*.", "host:0", "host:99999", "host:http", "[::1", "fe80::1%eth0", "user@host"} {
		if _, err := ParseRules([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		} else if !strings.Contains(err.Error(), "allow rule") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestRulesMatch(t *testing.T) {
	rs, err := ParseRules([]string{"API.Anthropic.com", "*.example.test", "only443.test:443", "127.0.0.1:8080", "::1", "[::2]:22", "::ffff:10.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	names := []struct {
		host string
		port int
		rule string
	}{
		{"api.anthropic.com", 443, "API.Anthropic.com"},
		{"api.anthropic.com", 80, "API.Anthropic.com"},
		{"a.example.test", 80, "*.example.test"},
		{"a.b.example.test", 80, "*.example.test"},
		{"example.test", 80, ""},
		{"badexample.test", 80, ""},
		{"only443.test", 443, "only443.test:443"},
		{"only443.test", 80, ""},
		{"anthropic.com", 443, ""},
	}
	for _, c := range names {
		rule, ok := rs.matchName(normalName(c.host), c.port)
		if rule != c.rule || ok != (c.rule != "") {
			t.Errorf("%s:%d matched %q %v, want %q", c.host, c.port, rule, ok, c.rule)
		}
	}
	ips := []struct {
		ip   string
		port int
		rule string
	}{
		{"127.0.0.1", 8080, "127.0.0.1:8080"},
		{"127.0.0.1", 8081, ""},
		{"::ffff:127.0.0.1", 8080, "127.0.0.1:8080"},
		{"::1", 1, "::1"},
		{"::2", 22, "[::2]:22"},
		{"::2", 23, ""},
		{"10.0.0.1", 5, "::ffff:10.0.0.1"},
	}
	for _, c := range ips {
		rule, ok := rs.matchIP(netip.MustParseAddr(c.ip), c.port)
		if rule != c.rule || ok != (c.rule != "") {
			t.Errorf("%s:%d matched %q %v, want %q", c.ip, c.port, rule, ok, c.rule)
		}
	}
	// A name rule never allows an IP literal, and an IP rule no name.
	if _, ok := rs.matchName("127.0.0.1", 8080); ok {
		t.Error("IP literal matched as a name")
	}
}

func TestLocalKind(t *testing.T) {
	for ip, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "::ffff:127.0.0.2": "loopback",
		"10.1.2.3": "private", "192.168.0.1": "private", "172.16.0.1": "private", "fd00::1": "private",
		"169.254.169.254": "link-local", "fe80::1": "link-local",
		"0.0.0.0": "unspecified", "::": "unspecified", "0.1.2.3": "this-network",
		"100.64.0.1": "shared (carrier NAT)", "239.1.2.3": "multicast", "224.0.0.1": "link-local",
		"93.184.216.34": "", "2606:4700::1111": "",
	} {
		if got := localKind(netip.MustParseAddr(ip)); got != want {
			t.Errorf("%s: %q, want %q", ip, got, want)
		}
	}
}

// A name resolving to both a public and a loopback address is dialled at
// the public one only; the addresses dialled are the ones checked.
func TestDecideKeepsOnlyCheckedAddresses(t *testing.T) {
	dns := newFakeDNS("mixed.example.test", "127.0.0.1", "mixed.example.test", "93.184.216.34", "mixed.example.test", "::ffff:10.0.0.9")
	p, err := New(Config{Allow: []string{"*.example.test"}, Resolver: dns})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	d, targets := p.decide(context.Background(), ProtoConnect, "Mixed.Example.Test.", 443)
	if !d.Allowed || d.Err != nil || len(targets) != 1 || targets[0].String() != "93.184.216.34:443" {
		t.Fatalf("%+v %v", d, targets)
	}
	if q := dns.lookups(); len(q) != 1 || q[0] != "mixed.example.test" {
		t.Fatalf("lookups %q", q)
	}
	d, targets = p.decide(context.Background(), ProtoConnect, "::ffff:93.184.216.34", 443)
	if d.Allowed || !isDenied(d.Err) || targets != nil {
		t.Fatalf("an IP literal no IP rule names: %+v %v", d, targets)
	}
}
