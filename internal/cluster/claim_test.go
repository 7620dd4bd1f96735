package cluster

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
)

// Issue 23: a worker's claim whose write reached the bucket and whose
// acknowledgement was lost (a leader's failover) is sent again; the
// worker finds its own claim and the run is its to start. It had read
// "taken" and dropped the run, the record pending on it for ever. Another
// worker still finds the run taken.
func TestClaimAfterLostAck(t *testing.T) {
	c, req, rec := submitted(t)
	ctx := context.Background()
	sessions := &lossyKV{KeyValue: c.Sessions}
	sessions.lose.Store(1)
	lossy := *c
	lossy.Sessions = sessions
	w1 := &Worker{C: &lossy, ID: "w1", Host: "h1", Now: time.Now}
	claimed, err := w1.claim(ctx, req)
	if err != nil {
		t.Fatalf("the claim sent again after its acknowledgement was lost: %v", err)
	}
	if sessions.lose.Load() > 0 {
		t.Fatal("no acknowledgement was lost")
	}
	got, rev, err := c.latest(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != session.Pending || got.Remote.Worker != "w1" || got.Remote.Host != "h1" || rev != claimed {
		t.Fatalf("claimed at revision %d: the record reads %s on %q (%q) at %d", claimed, got.Status, got.Remote.Worker, got.Remote.Host, rev)
	}
	if n := w1.count(); n != 1 {
		t.Fatalf("w1 heartbeats %d runs after its claim, want 1", n)
	}

	w2 := &Worker{C: c, ID: "w2", Now: time.Now}
	if _, err := w2.claim(ctx, req); !errors.Is(err, errTaken) {
		t.Fatalf("another worker's claim: %v, want taken", err)
	}
	if n := w2.count(); n != 0 {
		t.Fatalf("w2 heartbeats %d runs it did not take", n)
	}
}

// A request delivered again while its run is held here (taken, not yet
// started: its record still pending on this worker) is dropped, not
// claimed and started a second time.
func TestRedeliveryWhileHeld(t *testing.T) {
	c := openTest(t, clustertest.Start(t, 3).URL())
	ctx := context.Background()
	dir := t.TempDir()
	req := remoterun.Request{Tool: "codex", Prompt: "p", Cwd: dir, ProjectRoot: dir, RunFlags: []string{"no-preflight=true"}}
	rec, err := c.Submit(ctx, req, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	req.ID, req.Attempt = rec.ID, 1
	cfg := config.Default()
	cfg.Tools = map[string]config.ToolConfig{"codex": {Enabled: true, Path: "/bin/true"}}
	state := t.TempDir()
	getenv := func(k string) string {
		if k == "CSA_STATE_DIR" {
			return state
		}
		return ""
	}
	// A run started by mistake fails at once: there is no csa to start it.
	local := &Local{CSA: filepath.Join(state, "no-csa"), Config: &cfg, Getenv: getenv}
	w1 := &Worker{C: c, ID: "w1", Now: time.Now, Local: local}
	w1.ctl.hold(req.ID, 1)
	claimed, err := w1.claim(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := c.Runs.Consumer(ctx, WorkersConsumer)
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	msg, ok := <-batch.Messages()
	if !ok {
		t.Fatalf("the request was not delivered: %v", batch.Error())
	}
	w1.take(ctx, msg)
	waitFor := time.Now().Add(30 * time.Second)
	for {
		info, err := cons.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.NumAckPending == 0 && info.NumPending == 0 {
			break // dropped
		}
		if time.Now().After(waitFor) {
			t.Fatalf("the request delivered again is still queued: %d pending, %d delivered", info.NumPending, info.NumAckPending)
		}
		time.Sleep(followEvery)
	}
	got, rev, err := c.latest(ctx, req.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rev != claimed || got.Status != session.Pending || w1.count() != 1 {
		t.Fatalf("after a delivery while held: revision %d (claimed at %d), %s, %d runs held", rev, claimed, got.Status, w1.count())
	}
}

// notYetKV answers the next gets as a replica that has not yet applied a
// new record does: no such key.
type notYetKV struct {
	jetstream.KeyValue
	behind atomic.Int32
}

func (s *notYetKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	if s.behind.Add(-1) >= 0 {
		return nil, jetstream.ErrKeyNotFound
	}
	return s.KeyValue.Get(ctx, key)
}

// A request taken at once, while the replica a worker's read reaches has
// not yet applied the run's new record, is claimed all the same: the claim
// reads the bucket's leader. Read from the replica, "no such session" had
// the worker drop the request, the record pending on no worker for ever
// (1 run of 30 in a CI run at load 11).
func TestClaimBeforeAReplicaHasTheRecord(t *testing.T) {
	c, req, rec := submitted(t)
	ctx := context.Background()
	sessions := &notYetKV{KeyValue: c.Sessions}
	sessions.behind.Store(100)
	behind := *c
	behind.Sessions = sessions
	w := &Worker{C: &behind, ID: "w1", Host: "h1", Now: time.Now}
	if _, err := w.claim(ctx, req); err != nil {
		t.Fatalf("claim while a replica has not applied the record: %v", err)
	}
	got, _, err := c.latest(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Remote.Worker != "w1" {
		t.Fatalf("the record names worker %q, want w1", got.Remote.Worker)
	}
}

// submitted is a 3-node cluster with one run queued: its request (id and
// attempt set, as a worker takes it) and its pending record.
func submitted(t *testing.T) (*Cluster, remoterun.Request, *Record) {
	t.Helper()
	c := openTest(t, clustertest.Start(t, 3).URL())
	dir := t.TempDir()
	req := remoterun.Request{Tool: "codex", Prompt: "p", Cwd: dir, ProjectRoot: dir}
	rec, err := c.Submit(context.Background(), req, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	req.ID, req.Attempt = rec.ID, 1
	return c, req, rec
}
