package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/proc"
)

// gone: pid has exited, or is a zombie its parent has not reaped yet.
// Unknown (0), or this very process (a hub served in process, as tests
// do), it has nothing more to wait for.
func gone(pid int) bool {
	if pid == 0 || pid == os.Getpid() {
		return true
	}
	e, ok := proc.Stat(pid)
	return !ok || e.State == 'Z' || e.State == 'X'
}

// StopMethod asks the hub to stop (csa mcp stop): it answers, stops its
// backends, removes its socket and exits.
const StopMethod = "csa-hub/stop"

// ErrNoHub: nothing answers on the socket.
var ErrNoHub = errors.New("no MCP hub running")

// stopRequested answers a stop request and stops the hub once the answer
// is on its way.
func (cl *client) stopRequested(m *msg) {
	fmt.Fprintf(cl.h.logw, "%s csa-mcp hub: stop requested: exiting\n", LogTime())
	cl.out.send(resultReply(m.ID, map[string]any{"pid": os.Getpid()}))
	go cl.h.Close()
}

// Stop asks the hub on socket to stop and waits, up to timeout, until it
// has: its socket is gone and its life lock free (the hub has exited,
// after its backends). No hub is ErrNoHub.
func Stop(socket string, timeout time.Duration) error {
	conn, err := net.DialTimeout("unix", socket, timeout)
	if err != nil {
		return fmt.Errorf("%w on %s", ErrNoHub, socket)
	}
	defer conn.Close()
	deadline := time.Now().Add(timeout)
	conn.SetDeadline(deadline)
	if _, err := conn.Write(request(StopMethod)); err != nil {
		return fmt.Errorf("hub on %s: %w", socket, err)
	}
	// The answer (with the hub's pid), or the hub hanging up as it goes:
	// either way it stops.
	var answer struct {
		PID int `json:"pid"`
	}
	if m, err := newReader(conn).next(); err == nil {
		_ = json.Unmarshal(m.Result, &answer)
	}
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		_, statErr := os.Stat(socket)
		held, err := lock.Held(LifeLock(socket))
		if err != nil {
			return err
		}
		// The hub frees its lock last, then exits: the process ends a
		// moment later.
		if os.IsNotExist(statErr) && !held && gone(answer.PID) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the hub on %s has not exited %v after it was asked to stop", socket, timeout)
		}
		time.Sleep(pause)
	}
}
