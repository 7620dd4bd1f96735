package egress

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The HTTP side reads one request head itself rather than through
// net/http: csa links this package, and net/http (with crypto/tls) would
// add 5 MB to csa and half a millisecond to every csa start, confined or
// not (measured: docs/performance.md). A proxy needs only the head: a
// CONNECT is a tunnel, and an absolute-URI request is passed on in origin
// form with "Connection: close", then relayed byte for byte, so its body
// and the response (chunked, streamed, 100-continue) are never parsed.
// Each plain HTTP request is thus one upstream connection and one policy
// decision.

// headTimeout bounds the wait for a request's head.
const headTimeout = time.Minute

// hopByHop are the headers of the hop between the client and the proxy,
// never passed on (RFC 9110 7.6.1); Transfer-Encoding is kept, as the
// body is relayed as it is.
var hopByHop = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authorization", "Proxy-Authenticate", "Te", "Trailer", "Upgrade"}

// serveHTTP1 serves one HTTP connection: a CONNECT tunnel, or one
// absolute-URI request.
func (p *Proxy) serveHTTP1(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(headTimeout))
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		return
	}
	method, target, proto, ok := requestLine(line)
	if !ok {
		reply(c, 400, "csa sandbox: a malformed request line: "+strconv.Quote(line))
		return
	}
	hdr, err := tp.ReadMIMEHeader()
	if err != nil {
		reply(c, 400, "csa sandbox: malformed request headers: "+err.Error())
		return
	}
	c.SetReadDeadline(time.Time{})
	ctx, cancel := context.WithTimeout(context.Background(), p.dialer.Timeout)
	defer cancel()
	if method == "CONNECT" {
		host, port, err := splitPort(target)
		if err != nil {
			reply(c, 400, fmt.Sprintf("csa sandbox: CONNECT %q: %v", target, err))
			return
		}
		up, err := p.dial(ctx, ProtoConnect, host, port)
		if err != nil {
			refuse(c, err)
			return
		}
		if _, err := c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
			up.Close()
			return
		}
		p.pass(c, br, up)
		return
	}
	u, err := url.Parse(target)
	if err != nil || !u.IsAbs() || u.Host == "" {
		reply(c, 400, "csa sandbox: this is an egress proxy: send an absolute-URI request or CONNECT")
		return
	}
	if u.Scheme != "http" {
		reply(c, 400, "csa sandbox: "+u.Scheme+" through an HTTP proxy goes by CONNECT")
		return
	}
	port := 80
	if s := u.Port(); s != "" {
		if port, err = strconv.Atoi(s); err != nil || port < 1 || port > 65535 {
			reply(c, 400, fmt.Sprintf("csa sandbox: port %q is not 1-65535", s))
			return
		}
	}
	up, err := p.dial(ctx, ProtoHTTP, u.Hostname(), port)
	if err != nil {
		refuse(c, err)
		return
	}
	if _, err := up.Write(originHead(method, u, proto, hdr)); err != nil {
		up.Close()
		reply(c, 502, "csa sandbox: upstream: "+err.Error())
		return
	}
	p.pass(c, br, up)
}

// pass sends up what the client sent beyond the head (a TLS hello, a
// body), then relays both ways.
func (p *Proxy) pass(c net.Conn, br *bufio.Reader, up net.Conn) {
	if n := br.Buffered(); n > 0 {
		early, _ := br.Peek(n)
		if _, err := up.Write(early); err != nil {
			up.Close()
			return
		}
	}
	relay(c, up)
}

// requestLine splits "METHOD TARGET HTTP/x.y".
func requestLine(line string) (method, target, proto string, ok bool) {
	f := strings.Split(line, " ")
	if len(f) != 3 || f[0] == "" || f[1] == "" || !strings.HasPrefix(f[2], "HTTP/1.") {
		return "", "", "", false
	}
	return f[0], f[1], f[2], true
}

// originHead is the request's head as the server gets it: origin form,
// Host kept (or the URL's), the hop's own headers dropped, and the
// connection closed after the one response.
func originHead(method string, u *url.URL, proto string, hdr textproto.MIMEHeader) []byte {
	drop := map[string]bool{}
	for _, h := range hopByHop {
		drop[h] = true
	}
	for _, v := range hdr.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			drop[textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name))] = true
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s %s\r\n", method, u.RequestURI(), proto)
	if hdr.Get("Host") == "" {
		fmt.Fprintf(&b, "Host: %s\r\n", u.Host)
	}
	for k, vs := range hdr {
		if drop[k] {
			continue
		}
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("Connection: close\r\n\r\n")
	return b.Bytes()
}

// refuse answers a request policy refused (403, with the reason) or whose
// host could not be reached (502).
func refuse(c net.Conn, err error) {
	var denied *DeniedError
	if errors.As(err, &denied) {
		reply(c, 403, denied.Error())
		return
	}
	reply(c, 502, "csa sandbox: upstream: "+err.Error())
}

var statusText = map[int]string{400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}

// reply writes a complete response with a text body, and closes.
func reply(c net.Conn, code int, body string) {
	body += "\n"
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, statusText[code], len(body), body)
}
