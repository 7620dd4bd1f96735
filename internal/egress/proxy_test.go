package egress

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func TestPlainHTTPAllowedByIPRule(t *testing.T) {
	_, port := upstream(t)
	ds, addr := startProxy(t, newFakeDNS(), "127.0.0.1:"+port)
	c := client(t, "http://"+addr, nil)
	code, body := get(t, c, "http://127.0.0.1:"+port+"/hello")
	if code != 200 || body != `upstream saw GET 127.0.0.1:`+port+` /hello ""` {
		t.Fatalf("got %d %q", code, body)
	}
	d := ds.next(t)
	if !d.Allowed || d.Err != nil || d.Proto != ProtoHTTP || d.Rule != "127.0.0.1:"+port || d.Host != "127.0.0.1" || strconv.Itoa(d.Port) != port {
		t.Fatalf("decision %+v", d)
	}
}

func TestPlainHTTPForwardsBodyAndStripsProxyHeaders(t *testing.T) {
	var sawProxyAuth []string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawProxyAuth = r.Header.Values("Proxy-Authorization")
		echoRequest(w, r)
	}))
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	dns := newFakeDNS("api.example.test", "127.0.0.1")
	_, addr := startProxy(t, dns, "api.example.test", "127.0.0.1")
	c := client(t, "http://user:secret@"+addr, nil)
	target := "http://api.example.test:" + u.Port() + "/v1/messages"
	resp, err := c.Post(target, "application/octet-stream", strings.NewReader("\x00\xffbody"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := fmt.Sprintf("upstream saw POST api.example.test:%s /v1/messages %q", u.Port(), "\x00\xffbody")
	if resp.StatusCode != 200 || string(b) != want {
		t.Fatalf("got %d %q, want %q", resp.StatusCode, b, want)
	}
	if len(sawProxyAuth) != 0 {
		t.Fatalf("the proxy's credentials reached the host: %q", sawProxyAuth)
	}
}

func TestConnectTunnelsTLS(t *testing.T) {
	s := httptest.NewTLSServer(http.HandlerFunc(echoRequest))
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	ds, addr := startProxy(t, newFakeDNS(), "127.0.0.1")
	tr := s.Client().Transport.(*http.Transport).Clone()
	c := client(t, "http://"+addr, tr)
	code, body := get(t, c, s.URL+"/secure")
	if code != 200 || body != `upstream saw GET 127.0.0.1:`+u.Port()+` /secure ""` {
		t.Fatalf("got %d %q", code, body)
	}
	if d := ds.next(t); !d.Allowed || d.Proto != ProtoConnect || d.Rule != "127.0.0.1" {
		t.Fatalf("decision %+v", d)
	}
}

func TestSOCKS5WithSuffixRule(t *testing.T) {
	_, port := upstream(t)
	dns := newFakeDNS("api.example.test", "127.0.0.1", "deep.api.example.test", "127.0.0.1")
	ds, addr := startProxy(t, dns, "*.example.test", "127.0.0.1:"+port)
	for _, host := range []string{"api.example.test", "deep.api.example.test"} {
		c := client(t, "socks5://"+addr, nil)
		code, body := get(t, c, "http://"+host+":"+port+"/s")
		if code != 200 || body != `upstream saw GET `+host+`:`+port+` /s ""` {
			t.Fatalf("%s: got %d %q", host, code, body)
		}
		d := ds.next(t)
		if !d.Allowed || d.Proto != ProtoSOCKS5 || d.Rule != "*.example.test" || d.Host != host {
			t.Fatalf("decision %+v", d)
		}
	}
}

// A refused host is never looked up: its name must not reach DNS.
func TestRefusedHostEachProtocol(t *testing.T) {
	_, port := upstream(t)
	dns := newFakeDNS("denied.test", "127.0.0.1", "example.test", "127.0.0.1")
	ds, addr := startProxy(t, dns, "*.example.test", "127.0.0.1:"+port)
	want := "csa sandbox: host denied.test:" + port + " is not in the allow list (sandbox.allow_hosts)"

	code, body := get(t, client(t, "http://"+addr, nil), "http://denied.test:"+port+"/")
	if code != http.StatusForbidden || strings.TrimSpace(body) != want {
		t.Fatalf("plain HTTP: got %d %q", code, body)
	}
	checkRefused(t, ds.next(t), ProtoHTTP, "denied.test")

	resp := rawConnect(t, addr, "denied.test:"+port)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusForbidden || strings.TrimSpace(string(b)) != want {
		t.Fatalf("CONNECT: got %d %q", resp.StatusCode, b)
	}
	checkRefused(t, ds.next(t), ProtoConnect, "denied.test")

	_, err := client(t, "socks5://"+addr, nil).Get("http://denied.test:" + port + "/")
	if err == nil || !strings.Contains(err.Error(), "not allowed by ruleset") {
		t.Fatalf("SOCKS5: %v", err)
	}
	checkRefused(t, ds.next(t), ProtoSOCKS5, "denied.test")

	// The suffix rule covers subdomains only, not the domain itself.
	code, _ = get(t, client(t, "http://"+addr, nil), "http://example.test:"+port+"/")
	if code != http.StatusForbidden {
		t.Fatalf("example.test under *.example.test: %d", code)
	}
	checkRefused(t, ds.next(t), ProtoHTTP, "example.test")
	if q := dns.lookups(); len(q) != 0 {
		t.Fatalf("refused names were looked up: %q", q)
	}
}

func checkRefused(t *testing.T, d Decision, proto, host string) {
	t.Helper()
	if d.Allowed || d.Proto != proto || d.Host != host || d.Rule != "" || !isDenied(d.Err) {
		t.Fatalf("decision %+v, want %s %s refused", d, proto, host)
	}
}

// rawConnect sends one CONNECT and reads the proxy's answer.
func rawConnect(t *testing.T, proxyAddr, target string) *http.Response {
	t.Helper()
	c, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// A name the rules allow that resolves to loopback is refused unless an
// IP rule names that address (DNS rebinding).
func TestNameResolvingToLoopback(t *testing.T) {
	_, port := upstream(t)
	dns := newFakeDNS("rebind.example.test", "127.0.0.1")
	target := "http://rebind.example.test:" + port + "/"

	ds, addr := startProxy(t, dns, "rebind.example.test")
	code, body := get(t, client(t, "http://"+addr, nil), target)
	want := "csa sandbox: host rebind.example.test:" + port + " resolves to 127.0.0.1, a loopback address not in the allow list (sandbox.allow_hosts)"
	if code != http.StatusForbidden || strings.TrimSpace(body) != want {
		t.Fatalf("got %d %q", code, body)
	}
	d := ds.next(t)
	if d.Allowed || !isDenied(d.Err) || d.Rule != "rebind.example.test" {
		t.Fatalf("decision %+v", d)
	}
	_, err := client(t, "socks5://"+addr, nil).Get(target)
	if err == nil || !strings.Contains(err.Error(), "not allowed by ruleset") {
		t.Fatalf("SOCKS5: %v", err)
	}
	if d := ds.next(t); d.Allowed || d.Proto != ProtoSOCKS5 {
		t.Fatalf("decision %+v", d)
	}

	ds, addr = startProxy(t, dns, "rebind.example.test", "127.0.0.1:"+port)
	code, body = get(t, client(t, "http://"+addr, nil), target)
	if code != 200 || !strings.HasPrefix(body, "upstream saw GET rebind.example.test:"+port) {
		t.Fatalf("with the IP allowed: %d %q", code, body)
	}
	if d := ds.next(t); !d.Allowed || d.Rule != "rebind.example.test" {
		t.Fatalf("decision %+v", d)
	}
}

// An allowed name that cannot be resolved or reached is a failure, not
// a refusal: 502, and the decision says allowed with the error.
func TestAllowedButUnreachable(t *testing.T) {
	ds, addr := startProxy(t, newFakeDNS(), "nowhere.example.test")
	code, body := get(t, client(t, "http://"+addr, nil), "http://nowhere.example.test/")
	if code != http.StatusBadGateway || !strings.Contains(body, "cannot resolve nowhere.example.test") {
		t.Fatalf("got %d %q", code, body)
	}
	if d := ds.next(t); !d.Allowed || d.Err == nil || isDenied(d.Err) {
		t.Fatalf("decision %+v", d)
	}
	_, err := client(t, "socks5://"+addr, nil).Get("http://nowhere.example.test/")
	if err == nil || !strings.Contains(err.Error(), "host unreachable") {
		t.Fatalf("SOCKS5: %v", err)
	}
	if d := ds.next(t); !d.Allowed || d.Err == nil {
		t.Fatalf("decision %+v", d)
	}
}

func TestNotAProxyRequest(t *testing.T) {
	_, addr := startProxy(t, newFakeDNS())
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "egress proxy") {
		t.Fatalf("got %d %q", resp.StatusCode, b)
	}
}

// The production path: the proxy on 127.0.0.1, as csa run serves it, for
// all three protocols.
func TestProductionPath(t *testing.T) {
	s := httptest.NewTLSServer(http.HandlerFunc(echoRequest))
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	_, plainPort := upstream(t)
	dns := newFakeDNS("api.example.test", "127.0.0.1")
	ds, fwd := startProxy(t, dns, "api.example.test", "127.0.0.1")

	code, body := get(t, client(t, "http://"+fwd, nil), "http://api.example.test:"+plainPort+"/p")
	if code != 200 || !strings.HasPrefix(body, "upstream saw GET api.example.test:"+plainPort+" /p") {
		t.Fatalf("plain: %d %q", code, body)
	}
	tr := s.Client().Transport.(*http.Transport).Clone()
	code, body = get(t, client(t, "http://"+fwd, tr), s.URL+"/t")
	if code != 200 || !strings.HasPrefix(body, "upstream saw GET 127.0.0.1:"+u.Port()+" /t") {
		t.Fatalf("CONNECT: %d %q", code, body)
	}
	code, body = get(t, client(t, "socks5://"+fwd, nil), "http://api.example.test:"+plainPort+"/s")
	if code != 200 || !strings.HasPrefix(body, "upstream saw GET api.example.test:"+plainPort+" /s") {
		t.Fatalf("SOCKS5: %d %q", code, body)
	}
	for _, proto := range []string{ProtoHTTP, ProtoConnect, ProtoSOCKS5} {
		if d := ds.next(t); !d.Allowed || d.Proto != proto {
			t.Fatalf("decision %+v, want %s", d, proto)
		}
	}
}

// SOCKS5 on the wire: a refused CONNECT and a BIND both get reply code 2
// ("connection not allowed by ruleset"), and both are reported.
func TestSOCKS5RawRefusals(t *testing.T) {
	ds, addr := startProxy(t, newFakeDNS(), "127.0.0.1")
	for _, c := range []struct {
		cmd  byte
		host string
	}{{1, "denied.test"}, {2, "127.0.0.1"}} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		req := []byte{5, 1, 0, 5, c.cmd, 0}
		if c.host == "127.0.0.1" {
			req = append(req, 1, 127, 0, 0, 1)
		} else {
			req = append(append(req, 3, byte(len(c.host))), c.host...)
		}
		conn.Write(append(req, 0x01, 0xbb))
		reply := make([]byte, 12)
		if _, err := io.ReadFull(conn, reply); err != nil {
			t.Fatal(err)
		}
		conn.Close()
		if reply[0] != 5 || reply[1] != 0 || reply[2] != 5 || reply[3] != 2 {
			t.Fatalf("command %d to %s: reply % x, want method 0 then code 2", c.cmd, c.host, reply)
		}
		if d := ds.next(t); d.Allowed || d.Host != c.host || d.Port != 443 || d.Proto != ProtoSOCKS5 || d.Err == nil {
			t.Fatalf("decision %+v", d)
		}
	}
}
