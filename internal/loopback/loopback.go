// Package loopback keeps csa's servers on this machine: the web view
// (csa serve --ui) and the scripted model server listen on loopback
// addresses only.
package loopback

import (
	"fmt"
	"net"
	"net/netip"
)

// CheckAddr accepts only a loopback address (127.0.0.0/8, ::1 or
// localhost) with a port, as given to --addr: what listens there must
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
		return fmt.Errorf("--addr %q is not a loopback address: listen on 127.0.0.1, ::1 or localhost only", addr)
	}
	return nil
}
