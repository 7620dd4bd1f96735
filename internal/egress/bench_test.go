package egress

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkAddedLatency is issue 27's proxy figure: what a request to a
// local model-server-like HTTP server costs through the production path
// (client -> Proxy on 127.0.0.1 -> server, as csa run serves it)
// against the same request sent directly. Each iteration is one pair,
// direct and proxied in turn, so both see the same machine; a request
// posts 4 KiB (a prompt) and reads 1 KiB (a reply), and every answer is
// checked. Cases: plain HTTP forwarded on kept-alive connections (how
// the agent programs talk to a model server); the same with the
// client's connection new per request (a forwarder dial, a socket and an
// accept each time; the proxy keeps its own upstream connections);
// HTTPS through a CONNECT tunnel kept alive; HTTPS with a tunnel per
// request (every request a policy decision, a dial and a TLS handshake,
// as direct has the dial and the handshake); plain HTTP through SOCKS5
// kept alive.
func BenchmarkAddedLatency(b *testing.B) {
	reply := bytes.Repeat([]byte("r"), 1024)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if n != 4096 {
			http.Error(w, "short body", http.StatusBadRequest)
			return
		}
		w.Write(reply)
	})
	plain := httptest.NewServer(handler)
	b.Cleanup(plain.Close)
	secure := httptest.NewTLSServer(handler)
	b.Cleanup(secure.Close)

	var decided atomic.Int64
	p, err := New(Config{Allow: []string{"127.0.0.1"}, OnDecision: func(Decision) { decided.Add(1) }})
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	serve(b, p, l)
	fwd := l.Addr().String()

	tlsConfig := func() *http.Transport {
		return &http.Transport{TLSClientConfig: secure.Client().Transport.(*http.Transport).TLSClientConfig.Clone()}
	}
	cases := []struct {
		name           string
		target         string
		direct, proxed *http.Client
	}{
		{"http-keepalive", plain.URL, &http.Client{Transport: &http.Transport{}}, client(b, "http://"+fwd, nil)},
		{"http-new-conn", plain.URL, &http.Client{Transport: &http.Transport{DisableKeepAlives: true}},
			client(b, "http://"+fwd, &http.Transport{DisableKeepAlives: true})},
		{"https-connect", secure.URL, &http.Client{Transport: tlsConfig()}, client(b, "http://"+fwd, tlsConfig())},
		{"https-connect-new-tunnel", secure.URL, &http.Client{Transport: noKeepAlive(tlsConfig())},
			client(b, "http://"+fwd, noKeepAlive(tlsConfig()))},
		{"socks5-keepalive", plain.URL, &http.Client{Transport: &http.Transport{}}, client(b, "socks5://"+fwd, nil)},
	}
	body := bytes.Repeat([]byte("p"), 4096)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			post := func(cl *http.Client) time.Duration {
				t0 := time.Now()
				resp, err := cl.Post(c.target+"/v1/messages", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				took := time.Since(t0)
				if err != nil || resp.StatusCode != 200 || !bytes.Equal(got, reply) {
					b.Fatalf("%d %q %v", resp.StatusCode, got, err)
				}
				return took
			}
			post(c.direct) // warm up: first connections, first allocations
			post(c.proxed)
			var direct, proxied, added []time.Duration
			b.ResetTimer()
			for i := range b.N {
				var d, p time.Duration
				if i%2 == 0 {
					d, p = post(c.direct), post(c.proxed)
				} else {
					p, d = post(c.proxed), post(c.direct)
				}
				direct, proxied, added = append(direct, d), append(proxied, p), append(added, p-d)
			}
			b.StopTimer()
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(pct(direct, 50)), "direct-p50-ms")
			b.ReportMetric(ms(pct(proxied, 50)), "proxied-p50-ms")
			b.ReportMetric(ms(pct(added, 50)), "added-p50-ms")
			b.ReportMetric(ms(pct(added, 90)), "added-p90-ms")
			b.Logf("%s n=%d: direct p50 %.3f p90 %.3f ms; proxied p50 %.3f p90 %.3f ms; added per pair p50 %.3f p90 %.3f ms; policy decisions so far %d; load %s",
				c.name, b.N, ms(pct(direct, 50)), ms(pct(direct, 90)), ms(pct(proxied, 50)), ms(pct(proxied, 90)),
				ms(pct(added, 50)), ms(pct(added, 90)), decided.Load(), loadavg())
		})
	}
}

func noKeepAlive(t *http.Transport) *http.Transport {
	t.DisableKeepAlives = true
	return t
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
