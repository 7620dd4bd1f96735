package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"sync"
	"testing"
	"time"
)

// fakeDNS maps test names to addresses and remembers every lookup.
type fakeDNS struct {
	mu      sync.Mutex
	names   map[string][]netip.Addr
	queried []string
}

func newFakeDNS(pairs ...string) *fakeDNS {
	d := &fakeDNS{names: map[string][]netip.Addr{}}
	for i := 0; i < len(pairs); i += 2 {
		d.names[pairs[i]] = append(d.names[pairs[i]], netip.MustParseAddr(pairs[i+1]))
	}
	return d
}

func (d *fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.queried = append(d.queried, host)
	if a, ok := d.names[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (d *fakeDNS) lookups() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.queried...)
}

// decisions collects what a proxy reports.
type decisions chan Decision

func (ds decisions) add(d Decision) { ds <- d }

// next waits for the next decision; the bound only turns a hang into a
// failure.
func (ds decisions) next(t testing.TB) Decision {
	t.Helper()
	select {
	case d := <-ds:
		return d
	case <-time.After(time.Minute):
		t.Fatal("no decision reported")
		return Decision{}
	}
}

// serve runs p on l until the test ends.
func serve(t testing.TB, p *Proxy, l net.Listener) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.Serve(l) }()
	t.Cleanup(func() {
		p.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// startProxy is a proxy on 127.0.0.1 allowing allow, its decisions and
// its address.
func startProxy(t testing.TB, dns Resolver, allow ...string) (decisions, string) {
	t.Helper()
	ds := make(decisions, 100)
	p, err := New(Config{Allow: allow, OnDecision: ds.add, Resolver: dns})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, p, l)
	return ds, l.Addr().String()
}

// upstream is an HTTP server on 127.0.0.1 that says what it saw.
func upstream(t testing.TB) (*httptest.Server, string) {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(echoRequest))
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	return s, u.Port()
}

func echoRequest(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	fmt.Fprintf(w, "upstream saw %s %s %s %q", r.Method, r.Host, r.URL.Path, body)
}

// client is an HTTP client sending everything through proxyURL.
func client(t testing.TB, proxyURL string, tr *http.Transport) *http.Client {
	t.Helper()
	u, err := url.Parse(proxyURL)
	if err != nil {
		t.Fatal(err)
	}
	if tr == nil {
		tr = &http.Transport{}
	}
	tr.Proxy = http.ProxyURL(u)
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func get(t testing.TB, c *http.Client, target string) (int, string) {
	t.Helper()
	resp, err := c.Get(target)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func isDenied(err error) bool {
	var d *DeniedError
	return errors.As(err, &d)
}
