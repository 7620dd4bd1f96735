package hub

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"time"
)

// StatusMethod asks the hub for its Report (csa-mcp status); any client of
// the socket may ask, no MCP handshake needed.
const StatusMethod = "csa-hub/status"

// Report is the hub as `status` shows it; the JSON names are csa mcp
// status --json's, kept stable.
type Report struct {
	PID       int             `json:"pid"`
	StartedAt time.Time       `json:"started_at"`
	Uptime    float64         `json:"uptime_seconds"`
	Clients   int             `json:"clients"` // connected agents (status requests are not counted)
	Backends  []BackendStatus `json:"backends"`
}

// Report describes the hub now.
func (h *Hub) Report() Report {
	h.mu.Lock()
	n := len(h.active)
	h.mu.Unlock()
	return Report{PID: os.Getpid(), StartedAt: h.started.UTC().Truncate(time.Millisecond),
		Uptime: time.Since(h.started).Truncate(time.Millisecond).Seconds(), Clients: n, Backends: h.Status()}
}

// AskStatus asks the hub on socket for its report.
func AskStatus(socket string, timeout time.Duration) (*Report, error) {
	conn, err := net.DialTimeout("unix", socket, timeout)
	if err != nil {
		return nil, fmt.Errorf("%w on %s", ErrNoHub, socket)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	if _, err := conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"` + StatusMethod + `"}` + "\n")); err != nil {
		return nil, err
	}
	line, err := bufio.NewReaderSize(conn, 64<<10).ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("hub on %s: %w", socket, err)
	}
	var m struct {
		Result *Report `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("hub on %s: %w", socket, err)
	}
	if m.Error != nil || m.Result == nil {
		return nil, fmt.Errorf("hub on %s refused the status request", socket)
	}
	return m.Result, nil
}
