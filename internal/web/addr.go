package web

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
)

// DefaultAddr is where the view listens unless told: loopback, a port the
// kernel picks.
const DefaultAddr = "127.0.0.1:0"

// CheckAddr accepts only a loopback address (127.0.0.0/8, ::1 or
// localhost) with a port: the view can send to and kill sessions, and must
// never be reachable from another machine.
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %v (want 127.0.0.1:PORT)", addr, err)
	}
	if port == "" {
		return fmt.Errorf("--addr %q: no port (want 127.0.0.1:PORT)", addr)
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return fmt.Errorf("--addr %q is not a loopback address: the web view listens on 127.0.0.1 or ::1 only", addr)
	}
	return nil
}

// NewToken is a random token for the view's URL.
func NewToken() string {
	b := make([]byte, 24)
	rand.Read(b)
	return hex.EncodeToString(b)
}
