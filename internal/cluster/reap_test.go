package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/config"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
)

// openTest connects to a real cluster for a test.
func openTest(t *testing.T, url string) *Cluster {
	t.Helper()
	nc, err := Connect(config.ClusterConfig{URL: url}, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Open(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// faultyKV is the workers bucket as a loaded machine's client may read
// it: after its first listing, ListKeys leaves key hide out, as a listing
// cut short by its call's timeout does (the client ends it without an
// error); while stall is set, watches deliver nothing after their
// initial values (a consumer that fell behind), then catch up.
type faultyKV struct {
	jetstream.KeyValue
	hide   string
	listed atomic.Int32
	stall  atomic.Bool
}

type keyLister struct {
	keys chan string
	jetstream.KeyLister
}

func (l *keyLister) Keys() <-chan string { return l.keys }

func (f *faultyKV) ListKeys(ctx context.Context, opts ...jetstream.WatchOpt) (jetstream.KeyLister, error) {
	l, err := f.KeyValue.ListKeys(ctx, opts...)
	if err != nil {
		return nil, err
	}
	partial := f.listed.Add(1) > 1
	out := &keyLister{keys: make(chan string), KeyLister: l}
	go func() {
		defer close(out.keys)
		for k := range l.Keys() {
			if !partial || k != f.hide {
				out.keys <- k
			}
		}
	}()
	return out, nil
}

type keyWatcher struct {
	updates chan jetstream.KeyValueEntry
	jetstream.KeyWatcher
}

func (w *keyWatcher) Updates() <-chan jetstream.KeyValueEntry { return w.updates }

func (f *faultyKV) WatchAll(ctx context.Context, opts ...jetstream.WatchOpt) (jetstream.KeyWatcher, error) {
	w, err := f.KeyValue.WatchAll(ctx, opts...)
	if err != nil {
		return nil, err
	}
	out := &keyWatcher{updates: make(chan jetstream.KeyValueEntry), KeyWatcher: w}
	go func() {
		defer close(out.updates)
		initial := true
		for e := range w.Updates() {
			for !initial && f.stall.Load() {
				time.Sleep(10 * time.Millisecond) // the stall's poll interval
			}
			out.updates <- e
			initial = initial && e != nil
		}
	}()
	return out, nil
}

// Issue 23: a worker is lost only on evidence of its absence. Worker w1
// heartbeats with a run; an observer whose listings of the bucket leave
// w1 out and whose watch stops delivering for twice LostAfter does not
// find it lost. Once w1 stops beating, with the watch caught up again,
// its run is crashed "worker lost".
func TestReaperNeedsEvidenceOfAbsence(t *testing.T) {
	nc := clustertest.Start(t, 3)
	c := openTest(t, nc.URL())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	rec, err := c.Submit(ctx, remoterun.Request{Tool: "codex", Prompt: "p", Cwd: dir, ProjectRoot: dir}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	id := rec.ID
	if _, err := c.Update(ctx, id, func(r *Record) error {
		r.Remote.Worker = "w1"
		return r.Move(session.Running)
	}); err != nil {
		t.Fatal(err)
	}
	beating, stopBeats := context.WithCancel(ctx)
	beats := make(chan struct{})
	go func() {
		defer close(beats)
		hb, _ := json.Marshal(Heartbeat{ID: "w1", Running: []string{id}})
		everyBeat(beating, func() { c.Workers.Put(beating, "w1", hb) })
	}()
	if _, err := c.Workers.Put(ctx, "w1", []byte(`{"id":"w1","running":["`+id+`"]}`)); err != nil {
		t.Fatal(err)
	}

	kv := &faultyKV{KeyValue: c.Workers, hide: "w1"}
	faulty := *c
	faulty.Workers = kv
	r := &Reaper{C: &faulty, Now: time.Now, Self: "w2"}
	r.Watch(ctx)
	look := func() *Record {
		t.Helper()
		if _, err := r.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		got, _, err := c.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got, err = r.Check(ctx, got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(HeartbeatEvery) { // the sweeps' interval
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 60 s", what)
			}
		}
	}
	// The watch reads w1 once, then stalls while listings leave it out.
	waitUntil("w1 read by the watch", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		_, _, ok := r.live.Known("w1")
		return ok
	})
	kv.stall.Store(true)
	for end := time.Now().Add(2 * LostAfter); time.Now().Before(end); time.Sleep(HeartbeatEvery) { // a sweep a beat, as a worker's
		if got := look(); got.Status.Ended() {
			t.Fatalf("w1 beating, its run read %s, %q, after a partial read", got.Status, got.Reason)
		}
	}
	kv.stall.Store(false)

	stopBeats()
	<-beats
	var got *Record
	waitUntil("w1's run crashed after its heartbeats stopped", func() bool {
		got = look()
		return got.Status.Ended()
	})
	if got.Status != session.Crashed || got.Reason != WorkerLost || got.Remote.Worker != "w1" {
		t.Fatalf("after w1 stopped beating: %s, %q on %q", got.Status, got.Reason, got.Remote.Worker)
	}
}

// lossyKV is a bucket whose next writes fail: fail of them without
// writing (errInjected), lose of them after writing, as a write whose
// acknowledgement was lost in a leader's failover does.
type lossyKV struct {
	jetstream.KeyValue
	fail, lose atomic.Int32
}

var errInjected = errors.New("injected: the write failed")

func (l *lossyKV) Update(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	if l.fail.Add(-1) >= 0 {
		return 0, errInjected
	}
	n, err := l.KeyValue.Update(ctx, key, value, rev)
	if err == nil && l.lose.Add(-1) >= 0 {
		return 0, context.DeadlineExceeded
	}
	return n, err
}

// Issue 23: a lost worker's run is crashed although every record read
// from a replica is from before the worker's claim (pending, no worker),
// and although the first try to mark it fails: MarkLost decides on the
// record as the bucket's leader holds it, and the sweep tries again.
func TestMarkLostOnStaleReplicas(t *testing.T) {
	t.Parallel() // its windows of LostAfter run beside those of another test
	c := openTest(t, clustertest.Start(t, 3).URL())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	rec, err := c.Submit(ctx, remoterun.Request{Tool: "codex", Prompt: "p", Cwd: dir, ProjectRoot: dir}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	id := rec.ID
	queued, err := c.Sessions.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(ctx, id, func(r *Record) error {
		r.Remote.Worker = "w1"
		return r.Move(session.Running)
	}); err != nil {
		t.Fatal(err)
	}
	// One heartbeat of w1 naming the run, then none.
	if _, err := c.Workers.Put(ctx, "w1", []byte(`{"id":"w1","running":["`+id+`"]}`)); err != nil {
		t.Fatal(err)
	}
	stale := &staleKV{KeyValue: c.Sessions, old: queued}
	stale.stale.Store(math.MaxInt32)
	sessions := &lossyKV{KeyValue: stale}
	sessions.fail.Store(1)
	faulty := *c
	faulty.Sessions = sessions
	r := &Reaper{C: &faulty, Now: time.Now, Self: "w2"}
	r.Watch(ctx)
	var got *Record
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(HeartbeatEvery) { // a sweep a beat, as a worker's
		r.Sweep(ctx)
		if got, _, err = c.Get(ctx, id); err != nil {
			t.Fatal(err)
		}
		if got.Status.Ended() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("w1 silent, its run still reads %s after 60 s of sweeps", got.Status)
		}
	}
	if got.Status != session.Crashed || got.Reason != WorkerLost || got.Remote.Worker != "w1" {
		t.Fatalf("w1 lost: its run reads %s, %q on %q", got.Status, got.Reason, got.Remote.Worker)
	}
	if sessions.fail.Load() > 0 {
		t.Fatal("the run was marked without meeting the failed write")
	}
}
