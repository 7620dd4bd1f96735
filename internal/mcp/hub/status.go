package hub

import (
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
	if _, err := conn.Write(request(StatusMethod)); err != nil {
		return nil, err
	}
	m, err := newReader(conn).next()
	if err != nil {
		return nil, fmt.Errorf("hub on %s: %w", socket, err)
	}
	if m.Error != nil || len(m.Result) == 0 || string(m.Result) == "null" {
		return nil, fmt.Errorf("hub on %s refused the status request", socket)
	}
	r := new(Report)
	if err := json.Unmarshal(m.Result, r); err != nil {
		return nil, fmt.Errorf("hub on %s: %w", socket, err)
	}
	return r, nil
}

// request is the line of a request of method, without params, as csa-mcp
// asks its hub (status, stop): one question per connection, id 1.
func request(method string) []byte {
	return encode(&msg{ID: json.RawMessage("1"), Method: method})
}
