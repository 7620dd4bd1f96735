package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
)

// Worker takes run requests from the work queue while it has a free slot
// and the machine can run them, runs each as a local run, and keeps its
// record and output in the cluster up to date.
type Worker struct {
	C      *Cluster
	ID     string
	Host   string
	Labels map[string]string
	// MaxConcurrent is how many remote runs it runs at once (at least 1).
	MaxConcurrent int
	Local         *Local
	Now           func() time.Time
	// Log receives one line per event worth an operator's eye.
	Log io.Writer

	mu       sync.Mutex
	running  []string
	freed    chan struct{}
	started  time.Time
	jobs     sync.WaitGroup
	beatLock sync.Mutex
	ctl      controls
}

// errTaken: the request's record is no longer waiting for a worker.
var errTaken = errors.New("taken")

// errNotYet: the request is a later attempt than its record knows of yet.
var errNotYet = errors.New("record behind its request")

// Run works until ctx ends, then stops taking requests, follows the runs
// it has to their end and returns.
func (w *Worker) Run(ctx context.Context) error {
	if w.MaxConcurrent < 1 {
		return fmt.Errorf("max concurrent must be at least 1, not %d", w.MaxConcurrent)
	}
	w.freed = make(chan struct{}, 1)
	w.started = w.Now().UTC()
	if err := w.beat(ctx); err != nil {
		return err
	}
	cons, err := w.C.Runs.Consumer(ctx, WorkersConsumer)
	if err != nil {
		return fmt.Errorf("cluster: consumer %s: %w", WorkersConsumer, err)
	}
	life, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	go w.heartbeats(life)
	go w.reap(life)
	sub, err := w.serveControl(life)
	if err != nil {
		return fmt.Errorf("cluster: control subject: %w", err)
	}
	defer sub.Unsubscribe()
	w.logf("worker %s: taking runs (labels %v, max %d)", w.ID, w.Labels, w.MaxConcurrent)
	for ctx.Err() == nil {
		if w.count() >= w.MaxConcurrent {
			select {
			case <-w.freed:
			case <-ctx.Done():
			}
			continue
		}
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			w.pause(ctx, err)
			continue
		}
		for msg := range batch.Messages() {
			w.take(ctx, msg)
		}
		if err := batch.Error(); err != nil {
			w.pause(ctx, err)
		}
	}
	w.logf("worker %s: stopping; following %d running runs to their end", w.ID, w.count())
	w.jobs.Wait()
	stop()
	w.C.Workers.Delete(context.Background(), w.ID)
	return nil
}

// pause waits a little after a failed fetch (no leader, reconnecting).
func (w *Worker) pause(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	w.logf("worker %s: fetch: %v", w.ID, err)
	select {
	case <-ctx.Done():
	case <-time.After(250 * time.Millisecond):
	}
}

// take decides about one request: refused (another worker may take it),
// dropped (no longer waiting), or started here.
func (w *Worker) take(ctx context.Context, msg jetstream.Msg) {
	var req remoterun.Request
	if err := decodeJSON(msg.Data(), &req); err != nil || req.ID == "" {
		w.logf("worker %s: dropping a malformed request: %v", w.ID, err)
		msg.Term()
		return
	}
	if !Matches(w.Labels, req.Labels) {
		msg.NakWithDelay(200 * time.Millisecond)
		return
	}
	if err := w.Local.CanRun(req); err != nil {
		w.logf("worker %s: refusing %s: %v", w.ID, req.ID, err)
		msg.NakWithDelay(200 * time.Millisecond)
		return
	}
	attempt := max(req.Attempt, 1)
	if held, ok := w.ctl.hold(req.ID, attempt); !ok {
		if held == attempt {
			msg.Term() // sent again (its acknowledgement was lost): it runs here
		} else {
			msg.NakWithDelay(time.Second) // the earlier attempt here is being stopped
		}
		return
	}
	claimed, err := w.claim(ctx, req)
	if err != nil {
		w.ctl.release(req.ID)
		if errors.Is(err, errTaken) || errors.Is(err, ErrNotFound) {
			msg.Term() // killed while queued, or run by another worker
			return
		}
		if errors.Is(err, errNotYet) {
			msg.NakWithDelay(200 * time.Millisecond) // requeued: its record is about to say so
			return
		}
		w.logf("worker %s: claiming %s: %v", w.ID, req.ID, err)
		msg.NakWithDelay(time.Second)
		return
	}
	if err := msg.DoubleAck(ctx); err != nil {
		// The claim holds: a redelivery finds the run held here, or
		// its record taken.
		w.logf("worker %s: ack %s: %v", w.ID, req.ID, err)
	}
	w.jobs.Add(1)
	go func() {
		defer w.jobs.Done()
		defer w.remove(req.ID)
		defer w.ctl.release(req.ID)
		w.run(context.WithoutCancel(ctx), req, claimed)
	}()
}

// claim makes run req this worker's, compare-and-set on its record, and
// returns the revision written. The record must be pending at req's
// attempt, claimed by no worker or by this one: a claim sent again after
// its acknowledgement was lost (a leader's failover) finds its own write,
// and a claim of an earlier take here that gave up on its answer is
// taken again (the worker holds no other take of the run: Worker.take).
func (w *Worker) claim(ctx context.Context, req remoterun.Request) (uint64, error) {
	// Heartbeat the session as ours before claiming it, so that a worker
	// lost right after the claim leaves a session its reapers can name.
	w.add(req.ID)
	w.beat(ctx)
	attempt := max(req.Attempt, 1)
	// Read at the leader: a replica that has not yet applied the run's
	// new record answers "no such session", and the request would be
	// dropped with its record pending for ever.
	_, claimed, err := w.C.updateAtLeader(ctx, req.ID, func(r *Record) error {
		if r.Remote.attempt() < attempt {
			return errNotYet
		}
		mine := r.Remote.Worker == "" || r.Remote.Worker == w.ID
		if r.Status != session.Pending || !mine || r.Remote.attempt() != attempt {
			return errTaken
		}
		r.Remote.Worker, r.Remote.Host, r.Remote.TakenAt = w.ID, w.Host, w.Now().UTC()
		return nil
	})
	if err != nil {
		w.remove(req.ID)
	}
	return claimed, err
}

// Matches reports whether a worker labelled have may take a run that
// wants want: every wanted label, with its value.
func Matches(have, want map[string]string) bool {
	for k, v := range want {
		if hv, ok := have[k]; !ok || hv != v {
			return false
		}
	}
	return true
}

func (w *Worker) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.running)
}

func (w *Worker) add(id string) {
	w.mu.Lock()
	w.running = append(w.running, id)
	w.mu.Unlock()
}

func (w *Worker) remove(id string) {
	w.mu.Lock()
	w.running = slices.DeleteFunc(w.running, func(s string) bool { return s == id })
	w.mu.Unlock()
	select {
	case w.freed <- struct{}{}:
	default:
	}
	w.beat(context.Background())
}

// beat writes the heartbeat now.
func (w *Worker) beat(ctx context.Context) error {
	w.beatLock.Lock()
	defer w.beatLock.Unlock()
	w.mu.Lock()
	h := Heartbeat{ID: w.ID, Host: w.Host, PID: os.Getpid(), Labels: w.Labels, MaxConcurrent: w.MaxConcurrent,
		Running: slices.Clone(w.running), StartedAt: w.started, At: w.Now().UTC()}
	w.mu.Unlock()
	if h.Running == nil {
		h.Running = []string{}
	}
	b, _ := json.Marshal(h)
	return retry(ctx, func(ctx context.Context) error {
		_, err := w.C.Workers.Put(ctx, w.ID, b)
		return err
	})
}

func (w *Worker) heartbeats(ctx context.Context) {
	everyBeat(ctx, func() {
		if err := w.beat(ctx); err != nil && ctx.Err() == nil {
			w.logf("worker %s: heartbeat: %v", w.ID, err)
		}
	})
}

// reap marks the sessions of lost workers crashed, and settles records
// claimed and left pending (stranded.go).
func (w *Worker) reap(ctx context.Context) {
	r := &Reaper{C: w.C, Now: w.Now, Self: w.ID}
	r.Watch(ctx)
	go every(ctx, strandedEvery, func() {
		settled, err := r.Stranded(ctx)
		for _, s := range settled {
			w.logf("worker %s: %s was pending on a worker not running it: now %s (attempt %d)", w.ID, s.ID, s.Status, s.Remote.attempt())
		}
		if err != nil && ctx.Err() == nil {
			w.logf("worker %s: looking for unstarted claims: %v", w.ID, err)
		}
	})
	everyBeat(ctx, func() {
		lost, err := r.Sweep(ctx)
		for _, l := range lost {
			w.logf("worker %s: worker %s lost: its running sessions are crashed", w.ID, l)
		}
		if err != nil && ctx.Err() == nil {
			w.logf("worker %s: reaping: %v", w.ID, err)
		}
	})
}

// everyBeat runs fn every HeartbeatEvery until ctx ends.
func everyBeat(ctx context.Context, fn func()) { every(ctx, HeartbeatEvery, fn) }

// every runs fn every d until ctx ends.
func every(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

func (w *Worker) logf(format string, args ...any) {
	if w.Log != nil {
		fmt.Fprintf(w.Log, w.Now().UTC().Format(time.RFC3339)+" "+format+"\n", args...)
	}
}
