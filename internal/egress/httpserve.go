package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
)

func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Host == "" {
		http.Error(w, "csa sandbox: this is an egress proxy: send an absolute-URI request or CONNECT", http.StatusBadRequest)
		return
	}
	p.forward.ServeHTTP(w, r)
}

// connect opens a tunnel to r.Host once policy allows it: 403 with the
// reason if not, 502 if the host cannot be reached.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := splitPort(r.Host)
	if err != nil {
		http.Error(w, fmt.Sprintf("csa sandbox: CONNECT %q: %v", r.Host, err), http.StatusBadRequest)
		return
	}
	target, err := p.dial(r.Context(), ProtoConnect, host, port)
	if err != nil {
		writeRefusal(w, err)
		return
	}
	client, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		target.Close()
		http.Error(w, "csa sandbox: cannot take the connection over: "+err.Error(), http.StatusInternalServerError)
		return
	}
	if _, err := client.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		client.Close()
		target.Close()
		return
	}
	// Bytes the client sent right after its request (a TLS hello) wait in
	// the server's buffer.
	if n := brw.Reader.Buffered(); n > 0 {
		early, _ := brw.Reader.Peek(n)
		if _, err := target.Write(early); err != nil {
			client.Close()
			target.Close()
			return
		}
	}
	relay(client, target)
}

// dialHTTP is the forwarding transport's dialer: the same policy, per
// new upstream connection.
func (p *Proxy) dialHTTP(ctx context.Context, _, addr string) (net.Conn, error) {
	host, port, err := splitPort(addr)
	if err != nil {
		return nil, err
	}
	return p.dial(ctx, ProtoHTTP, host, port)
}

func forwardError(w http.ResponseWriter, _ *http.Request, err error) {
	writeRefusal(w, err)
}

func writeRefusal(w http.ResponseWriter, err error) {
	var denied *DeniedError
	if errors.As(err, &denied) {
		http.Error(w, denied.Error(), http.StatusForbidden)
		return
	}
	http.Error(w, "csa sandbox: upstream: "+err.Error(), http.StatusBadGateway)
}
