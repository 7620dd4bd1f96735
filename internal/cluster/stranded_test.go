package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
)

// Issue 23: a record left pending on a live worker that does not run it
// (its claim reached the record, not the run) is settled by a reaper: a
// run without retries fails "never started", one with retries is queued
// again as its next attempt. A run its worker holds (starting) is left
// alone, and one pending on a worker gone from the bucket crashes
// "worker lost".
func TestUnstartedClaimSettled(t *testing.T) {
	t.Parallel() // its windows of LostAfter run beside those of another test
	c := openTest(t, clustertest.Start(t, 3).URL())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	claimed := func(retries int, worker string) string {
		t.Helper()
		rec, err := c.Submit(ctx, remoterun.Request{Tool: "codex", Prompt: "p", Cwd: dir, ProjectRoot: dir, Retries: retries}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Update(ctx, rec.ID, func(r *Record) error {
			r.Remote.Worker, r.Remote.Host, r.Remote.TakenAt = worker, "h", time.Now().UTC()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return rec.ID
	}
	plain, retried, held, gone := claimed(0, "w1"), claimed(1, "w1"), claimed(0, "w1"), claimed(0, "w3")
	hb, _ := json.Marshal(Heartbeat{ID: "w1", Running: []string{held}})
	if _, err := c.Workers.Put(ctx, "w1", hb); err != nil {
		t.Fatal(err)
	}
	beats := make(chan struct{})
	defer func() { cancel(); <-beats }()
	go func() {
		defer close(beats)
		everyBeat(ctx, func() { c.Workers.Put(ctx, "w1", hb) })
	}()

	r := &Reaper{C: c, Now: time.Now, Self: "w2"}
	r.Watch(ctx)
	read := func(id string) *Record {
		t.Helper()
		got, _, err := c.latest(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	settled := func() bool {
		return read(plain).Status.Ended() && read(retried).Remote.Worker == "" && read(gone).Status.Ended()
	}
	for deadline := time.Now().Add(60 * time.Second); !settled(); time.Sleep(HeartbeatEvery) {
		if time.Now().After(deadline) {
			t.Fatalf("not settled within 60 s: %s on %q; attempt %d on %q; %s on %q", read(plain).Status, read(plain).Remote.Worker,
				read(retried).Remote.attempt(), read(retried).Remote.Worker, read(gone).Status, read(gone).Remote.Worker)
		}
		if _, err := r.Stranded(ctx); err != nil {
			t.Log(err)
		}
	}
	if _, err := r.Stranded(ctx); err != nil {
		t.Fatal(err)
	}

	if got := read(plain); got.Status != session.Failed || got.Failure == nil || got.Failure.Class != session.FailStart ||
		got.Reason != "worker w1 "+NeverStarted {
		t.Errorf("without retries: %s, %q, %+v", got.Status, got.Reason, got.Failure)
	}
	got := read(retried)
	if got.Status != session.Pending || got.Remote.attempt() != 2 || len(got.Remote.Lost) != 1 ||
		got.Remote.Lost[0].Worker != "w1" || got.Remote.Lost[0].Attempt != 1 || got.Remote.Lost[0].Reason != NeverStarted {
		t.Errorf("with a retry: %s, attempt %d on %q, lost %+v", got.Status, got.Remote.attempt(), got.Remote.Worker, got.Remote.Lost)
	}
	if got := read(held); got.Status != session.Pending || got.Remote.Worker != "w1" {
		t.Errorf("held by its worker: %s on %q", got.Status, got.Remote.Worker)
	}
	if got := read(gone); got.Status != session.Crashed || got.Reason != WorkerLost {
		t.Errorf("on a worker gone: %s, %q", got.Status, got.Reason)
	}

	// The retry's request is queued.
	cons, err := c.Runs.Consumer(ctx, WorkersConsumer)
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.Fetch(5, jetstream.FetchMaxWait(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	queued := false
	for m := range batch.Messages() {
		var req remoterun.Request
		if decodeJSON(m.Data(), &req) == nil && req.ID == retried && req.Attempt == 2 {
			queued = true
		}
	}
	if !queued {
		t.Error("attempt 2 of the run with a retry is not queued")
	}
}
