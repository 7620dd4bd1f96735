package hub

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/csa-dev/csa/internal/lock"
)

// Listener is the hub's socket and its life lock, SOCKET.lock, which the
// hub holds for as long as it lives. The lock is what tells a stale socket
// (a hub that was killed) from a live one, makes a second hub on the same
// socket give up, and tells `csa mcp stop` that the hub, and so its
// backends, have exited.
type Listener struct {
	net.Listener
	socket string
	life   *lock.Lock
}

// lifeWait is how long a new hub waits for a stopping one to let go of
// the socket.
const lifeWait = 30 * time.Second

// ErrHubRunning: a hub answers on the socket already.
var ErrHubRunning = errors.New("a hub is already running")

// LifeLock is the file a hub on socket holds locked while it lives.
func LifeLock(socket string) string { return socket + ".lock" }

// Listen makes socket's directory private (0700) and listens there,
// replacing a socket no hub answers on. A hub that answers is an error; one
// still stopping is waited for.
func Listen(socket string) (*Listener, error) {
	dir := filepath.Dir(socket)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	if c, err := net.Dial("unix", socket); err == nil {
		c.Close()
		return nil, fmt.Errorf("%w on %s", ErrHubRunning, socket)
	}
	life := lock.New(LifeLock(socket))
	if err := life.LockTimeout(context.Background(), lifeWait); err != nil {
		if errors.Is(err, lock.ErrTimeout) {
			return nil, fmt.Errorf("another hub holds %s and does not answer on %s", LifeLock(socket), socket)
		}
		return nil, err
	}
	_ = os.Remove(socket) // no hub lives: a dead one's
	l, err := net.Listen("unix", socket)
	if err != nil {
		life.Unlock()
		return nil, err
	}
	return &Listener{Listener: l, socket: socket, life: life}, nil
}

// Release removes the socket and lets go of the life lock: the last thing
// a hub does, once its backends have exited.
func (l *Listener) Release() {
	l.Listener.Close()
	_ = os.Remove(l.socket)
	l.life.Unlock()
}
