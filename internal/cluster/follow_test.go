package cluster

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/session"
)

// staleKV answers the next stale reads with old, an entry read earlier,
// as a replica behind the bucket's leader does (reads may be served by
// any replica).
type staleKV struct {
	jetstream.KeyValue
	old   jetstream.KeyValueEntry
	stale atomic.Int32
}

func (s *staleKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	if s.stale.Add(-1) >= 0 {
		return s.old, nil
	}
	return s.KeyValue.Get(ctx, key)
}

// Issue 23: a worker stops its own run only on a record at least as new
// as its claim. A read from a replica that has not seen the claim yet
// (the run pending, no worker) neither makes the worker stop the run nor
// drops the run's next state; a record that really names another worker
// still does.
func TestFollowerStaleRead(t *testing.T) {
	c, _, rec := submitted(t)
	ctx := context.Background()
	queued, err := c.Sessions.Get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, claimed, err := c.update(ctx, rec.ID, 0, func(r *Record) error {
		r.Remote.Worker = "w1"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sessions := &staleKV{KeyValue: c.Sessions, old: queued}
	stale := *c
	stale.Sessions = sessions
	f := &follower{w: &Worker{C: &stale, ID: "w1", Now: time.Now}, id: rec.ID, localID: "local", attempt: 1, rev: claimed}

	sessions.stale.Store(1)
	if why := f.disowned(ctx); why != "" {
		t.Fatalf("a read older than the claim disowned the run: %s", why)
	}
	sessions.stale.Store(3)
	st := &session.State{ID: "local", Tool: "codex", Status: session.Running, StartedAt: time.Now()}
	if f.record(ctx, st) {
		t.Fatal("the record read ended")
	}
	got, _, err := c.Get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != session.Running || got.Remote.LocalID != "local" || got.Remote.Worker != "w1" {
		t.Fatalf("after stale reads the record reads %s, local %q, worker %q; want running, local, w1", got.Status, got.Remote.LocalID, got.Remote.Worker)
	}

	// Queued again for another worker: a fresh read disowns the run.
	if _, err := c.Update(ctx, rec.ID, func(r *Record) error {
		r.Remote.Worker, r.Remote.Attempt = "w2", 2
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if why := f.disowned(ctx); why == "" {
		t.Fatal("a record naming another worker's attempt did not disown the run")
	}
}

// A line the run was writing when the disk filled is cut back and written
// again (events.Append): the bytes the worker read before the cut are
// never sent, nor joined to the line that replaces them.
func TestEventsCutBackLine(t *testing.T) {
	c, _, rec := submitted(t)
	ctx := context.Background()
	store, err := session.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(store.Dir("local"), 0o700); err != nil {
		t.Fatal(err)
	}
	path := store.Path("local", session.EventsFile)
	f := &follower{w: &Worker{C: c, ID: "w1", Now: time.Now}, id: rec.ID, localID: "local", store: store}
	defer func() {
		if f.events != nil {
			f.events.Close()
		}
	}()
	write := func(flag int, s string) {
		t.Helper()
		fh, err := os.OpenFile(path, flag|os.O_WRONLY|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		fh.WriteString(s)
		fh.Close()
	}
	write(os.O_APPEND, "{\"n\":1}\n{\"n\":2,\"torn")
	f.publishEvents(ctx)
	os.Truncate(path, int64(len("{\"n\":1}\n"))) // the torn line cut back
	write(os.O_APPEND, "{\"n\":2,\"whole\":true}\n{\"n\":3}\n")
	f.publishEvents(ctx)

	var got []string
	if err := c.Replay(ctx, rec.ID, OutputSubject(rec.ID), false, nil, func(b []byte) error {
		got = append(got, string(b))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"n":1}`, `{"n":2,"whole":true}`, `{"n":3}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sent %q, want %q", got, want)
	}
}
