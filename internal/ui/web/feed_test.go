package web

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/ui/fleet"
)

// The feed reads the store while a client waits for a snapshot, and not
// while none does; a client that comes after a pause gets a snapshot
// taken after it came, not the old one.
func TestFeedReadsOnlyForClients(t *testing.T) {
	var reads atomic.Int64
	r := &fleet.Reader{Now: time.Now, Stores: func() ([]*session.Store, error) {
		reads.Add(1)
		return nil, nil
	}}
	f := NewFeed(r, 5*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Run(ctx)
	until := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 30 s (reads %d)", what, reads.Load())
			}
		}
	}
	paused := func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.idle }
	until("the first snapshot, then the pause", paused)
	before := reads.Load()
	time.Sleep(50 * time.Millisecond) // ten periods: a paused feed reads nothing in them
	if n := reads.Load(); n != before {
		t.Fatalf("read the store %d times with no client", n-before)
	}

	// A client: it gets a snapshot taken after it came.
	_, v, err := f.Next(ctx, 0)
	if err != nil || reads.Load() <= before || v < 2 {
		t.Fatalf("Next after the pause: version %d, %v, reads %d (were %d)", v, err, reads.Load(), before)
	}
	// While a client waits, the feed reads every period.
	wctx, stop := context.WithCancel(ctx)
	go f.Next(wctx, 1<<30) // a version that never comes
	start := reads.Load()
	until("reads while a client waits", func() bool { return reads.Load() >= start+3 })
	stop()
	until("the pause again", paused)
}
