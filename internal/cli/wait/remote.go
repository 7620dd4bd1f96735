package wait

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/csa-dev/csa/internal/cli/clustercmd"
	"github.com/csa-dev/csa/internal/session"
)

// remoteWatch follows remote sessions for a wait that mixes them with
// local ones: one `csa-cluster wait --watch` for the whole wait, which
// prints the remote sessions as a JSON line whenever they change (csa
// itself links no NATS).
type remoteWatch struct {
	ids    []string
	mu     sync.Mutex
	latest map[string]Entry
	err    error
	stop   context.CancelFunc
}

func startRemoteWatch(ctx context.Context, ids []string) (*remoteWatch, error) {
	ctx, stop := context.WithCancel(ctx)
	rw := &remoteWatch{ids: ids, latest: map[string]Entry{}, stop: stop}
	err := clustercmd.Watch(ctx, ids, func(line []byte) {
		var es []Entry
		if json.Unmarshal(line, &es) != nil {
			return
		}
		rw.mu.Lock()
		defer rw.mu.Unlock()
		for _, e := range es {
			rw.latest[e.ID] = e
		}
	}, func(err error) {
		rw.mu.Lock()
		defer rw.mu.Unlock()
		rw.err = err
	})
	if err != nil {
		stop()
		return nil, err
	}
	return rw, nil
}

// entry is remote session id as last seen (pending until the first
// answer).
func (rw *remoteWatch) entry(id string) (Entry, error) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.err != nil {
		return Entry{}, rw.err
	}
	e, ok := rw.latest[id]
	if !ok {
		return Entry{ID: id, State: "unknown", outcome: pending}, nil
	}
	e.outcome = headless(session.Status(e.State))
	return e, nil
}
