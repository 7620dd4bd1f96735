package egress

import (
	"errors"
	"net"
)

// Forwarder runs inside the agent's network namespace, where the host's
// loopback is out of reach: it relays each connection accepted on a
// loopback port to a unix socket bound outside (the proxy's, or the
// model server's), so the addresses the agent is given keep working.
type Forwarder struct {
	// Socket is the unix socket every connection is relayed to.
	Socket string
}

// Serve relays connections accepted on l until l is closed. A
// connection the socket refuses is closed at once.
func (f Forwarder) Serve(l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go func() {
			up, err := net.Dial("unix", f.Socket)
			if err != nil {
				c.Close()
				return
			}
			relay(c, up)
		}()
	}
}
