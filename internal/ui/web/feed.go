package web

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/ui/fleet"
)

// Feed takes a snapshot every Every (or at once when poked, after an
// action) for every client of the view: one reader however many pages are
// open, and none while no page is open (the store is not read for
// nobody). Clients wait for a version newer than the one they have.
type Feed struct {
	Reader *fleet.Reader
	Every  time.Duration

	mu       sync.Mutex
	snap     *fleet.Snapshot
	data     []byte // snap as JSON
	err      error
	version  int
	changed  chan struct{} // closed when version moves
	poke     chan struct{}
	watchers int  // clients in Next
	idle     bool // Run waits for a client; the snapshot may be old
}

// NewFeed makes a feed; Run takes the snapshots.
func NewFeed(r *fleet.Reader, every time.Duration) *Feed {
	return &Feed{Reader: r, Every: every, changed: make(chan struct{}), poke: make(chan struct{}, 1)}
}

// Run takes snapshots until ctx ends: every Every while a client waits
// for one, else only when one comes (or an action pokes it).
func (f *Feed) Run(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	force := true
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-f.poke:
			force = true // a client came after a pause: its snapshot must be new
		}
		snap, err := f.Reader.Snapshot(ctx)
		f.publish(snap, err, force)
		force = false
		f.mu.Lock()
		idle := f.watchers == 0
		f.idle = idle
		f.mu.Unlock()
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		if !idle {
			t.Reset(f.Every)
		}
	}
}

// Poke asks for a snapshot now.
func (f *Feed) Poke() {
	select {
	case f.poke <- struct{}{}:
	default:
	}
}

// publish makes snap the newest version, unless nothing but its time
// changed (force: a new version all the same).
func (f *Feed) publish(snap *fleet.Snapshot, err error, force bool) {
	var data []byte
	if err == nil {
		// The time of the snapshot alone is no change.
		data, _ = json.Marshal(snap.Rows)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !force && f.version > 0 && err == nil && f.err == nil && bytes.Equal(data, f.data) {
		return
	}
	f.snap, f.data, f.err = snap, data, err
	f.version++
	close(f.changed)
	f.changed = make(chan struct{})
}

// Next waits for a snapshot newer than version (0: any) and returns it
// with its version. A client that finds the feed paused wakes it and
// waits for the new snapshot it takes.
func (f *Feed) Next(ctx context.Context, version int) (*fleet.Snapshot, int, error) {
	f.mu.Lock()
	f.watchers++
	if f.idle {
		f.idle = false
		version = max(version, f.version)
		f.Poke()
	}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.watchers--
		f.mu.Unlock()
	}()
	for {
		f.mu.Lock()
		snap, v, err, ch := f.snap, f.version, f.err, f.changed
		f.mu.Unlock()
		if v > version {
			return snap, v, err
		}
		select {
		case <-ctx.Done():
			return nil, version, ctx.Err()
		case <-ch:
		}
	}
}

// Latest is the newest snapshot (waiting for the first).
func (f *Feed) Latest(ctx context.Context) (*fleet.Snapshot, error) {
	s, _, err := f.Next(ctx, 0)
	return s, err
}
