package hub

import (
	"encoding/json"
	"io"
	"net"
)

// Bridge connects an agent's stdio (in, out) to the hub on socket: what
// `csa-mcp connect` runs. It sends hello first, then copies bytes both
// ways; it returns when the hub hangs up.
func Bridge(socket string, hello Hello, in io.Reader, out io.Writer) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	defer conn.Close()
	h, _ := json.Marshal(hello)
	if _, err := conn.Write(encode(&msg{Method: helloMethod, Params: h})); err != nil {
		return err
	}
	go func() {
		_, _ = io.Copy(conn, in)
		// The agent is gone: let the hub cancel its calls and hang up.
		_ = conn.(*net.UnixConn).CloseWrite()
	}()
	_, err = io.Copy(out, conn)
	return err
}
