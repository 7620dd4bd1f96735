package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
)

// followEvery is how often a worker looks at a local run's state and
// events.
const followEvery = 50 * time.Millisecond

// run starts req here and mirrors its local session into the cluster
// until it ends: its state into the record, its events to its subject.
// claimed is the record's revision written by the claim.
func (w *Worker) run(ctx context.Context, req remoterun.Request, claimed uint64) {
	if kill, _ := w.ctl.killWanted(req.ID); kill {
		w.logf("worker %s: %s killed before it started", w.ID, req.ID)
		w.markKilled(ctx, req.ID)
		return
	}
	var sc *scratch
	if req.Tree != nil {
		var err error
		if sc, err = w.checkout(ctx, req); err != nil {
			w.failStart(ctx, req.ID, fmt.Errorf("checkout of the working tree: %w", err))
			return
		}
		req.Cwd = sc.cwd
	}
	localID, store, err := w.Local.Start(ctx, req)
	if err != nil {
		sc.remove()
		w.failStart(ctx, req.ID, err)
		return
	}
	w.logf("worker %s: %s runs as local session %s", w.ID, req.ID, localID)
	w.ctl.started(req.ID, localID, store)
	if kill, grace := w.ctl.killWanted(req.ID); kill {
		// Killed while it was starting.
		if _, err := w.killLocal(ctx, req.ID, localID, store, grace); err != nil {
			w.logf("worker %s: killing %s: %v", w.ID, req.ID, err)
		}
	}
	f := &follower{w: w, id: req.ID, localID: localID, store: store, scratch: sc, attempt: max(req.Attempt, 1), rev: claimed}
	if req.Retries > 0 {
		f.keptTree = req.Tree
	}
	f.follow(ctx)
}

// failStart ends session id failed: its run never started.
func (w *Worker) failStart(ctx context.Context, id string, err error) {
	w.logf("worker %s: %s did not start: %v", w.ID, id, err)
	w.C.Update(ctx, id, func(r *Record) error {
		if r.Status.Ended() {
			return session.ErrNoChange
		}
		r.EndedAt = w.Now().UTC()
		r.Reason = err.Error()
		r.Failure = &session.Failure{Class: session.FailStart, Message: err.Error()}
		return r.Move(session.Failed)
	})
}

type follower struct {
	w         *Worker
	id        string
	localID   string
	store     *session.Store
	last      *session.State
	events    *os.File
	eventsOff int64 // the end of the last whole line of the local events.jsonl sent
	// scratch is the run's working tree (nil: none); diff is what the
	// agent changed there, made once the local run has ended and
	// recorded with the ended state, so that whoever sees the session
	// ended finds its diff.
	scratch *scratch
	diff    *ResultDiff
	// attempt is the attempt of the run this follower runs; keptTree the
	// working tree kept in the cluster for later attempts, dropped when
	// this one ends.
	attempt  int
	keptTree *remoterun.TreeRef
	checked  time.Time // when the record last said the run is still ours
	// rev is the record's revision this worker last wrote or read: a
	// read older than it (a replica behind) says nothing of the run.
	rev     uint64
	killing bool // the record's kill request is being carried out
	// raw and stderr are the program's standard output and error, sent
	// as they are read (not by line).
	raw, stderr *os.File
}

func (f *follower) follow(ctx context.Context) {
	defer func() {
		for _, file := range []*os.File{f.events, f.raw, f.stderr} {
			if file != nil {
				file.Close()
			}
		}
	}()
	t := time.NewTicker(followEvery)
	defer t.Stop()
	for {
		st, err := f.store.Load(f.localID)
		if time.Since(f.checked) >= ownershipEvery {
			if why := f.disowned(ctx); why != "" {
				f.abandon(ctx, why)
				return
			}
			f.checked = time.Now()
		}
		// Events first: once the record says ended, its output is all
		// there.
		f.publishEvents(ctx)
		f.publishBytes(ctx, &f.raw, session.OutputFile, RawSubject(f.id))
		f.publishBytes(ctx, &f.stderr, session.StderrFile, StderrSubject(f.id))
		if err == nil && st.Status.Ended() && f.scratch != nil && f.diff == nil {
			f.diff = f.w.finish(ctx, f.id, f.scratch)
		}
		if err == nil && st.Status.Ended() && f.keptTree != nil {
			f.w.C.DropTree(ctx, f.keptTree)
			f.keptTree = nil
		}
		if err == nil && !reflect.DeepEqual(st, f.last) {
			if f.record(ctx, st) {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// record mirrors local state st into the record, unless the run is no
// longer this worker's; it reports whether the record has ended.
func (f *follower) record(ctx context.Context, st *session.State) bool {
	rec, rev, err := f.w.C.update(ctx, f.id, f.rev, func(r *Record) error {
		if r.Status.Ended() || f.notOurs(r) != "" {
			return session.ErrNoChange
		}
		mirror(r, st)
		if f.diff != nil {
			r.Remote.Diff = f.diff
		}
		return nil
	})
	if err != nil {
		f.w.logf("worker %s: record %s: %v", f.w.ID, f.id, err)
		return false
	}
	f.last, f.rev = st, max(f.rev, rev)
	return rec.Status.Ended()
}

// ownershipEvery is how often a follower makes sure the run is still its
// worker's: a worker cut off long enough to be declared lost finds, once
// it can reach the cluster again, its run crashed or queued again.
const ownershipEvery = time.Second

// disowned says why the run is no longer this worker's to run ("" while
// it is).
func (f *follower) disowned(ctx context.Context) string {
	r, rev, err := f.w.C.Get(ctx, f.id)
	if err != nil || rev < f.rev {
		return "" // unknown, or a replica behind: go on
	}
	f.rev = rev
	if why := f.notOurs(r); why != "" {
		return why
	}
	if !r.Remote.KillRequestedAt.IsZero() && !r.Status.Ended() && !f.killing {
		f.killFromRecord(ctx, r)
	}
	if r.Status.Ended() && r.Reason == WorkerLost {
		if st, err := f.store.Load(f.localID); err == nil && !st.Status.Ended() {
			return "the cluster declared this worker lost and the run crashed"
		}
	}
	return ""
}

// notOurs says why record r is not this follower's run ("" if it is).
func (f *follower) notOurs(r *Record) string {
	if r.Remote.Worker != f.w.ID || r.Remote.attempt() != f.attempt {
		return fmt.Sprintf("the cluster declared this worker lost and queued attempt %d", r.Remote.attempt())
	}
	return ""
}

// killFromRecord carries out a kill the record asks for, in case its
// request on the control subject never reached this worker (the control
// path kills at once; a second kill of an ended session changes nothing).
func (f *follower) killFromRecord(ctx context.Context, r *Record) {
	f.killing = true
	var grace *time.Duration
	if r.Remote.KillGraceMS != nil {
		g := time.Duration(*r.Remote.KillGraceMS) * time.Millisecond
		grace = &g
	}
	go func() {
		if _, err := f.w.killLocal(ctx, f.id, f.localID, f.store, grace); err != nil {
			f.w.logf("worker %s: killing %s as its record asks: %v", f.w.ID, f.id, err)
		}
	}()
}

// abandon stops the local run of a run the cluster gave up on here, so
// that it does not go on beside its next attempt; nothing more of it is
// published.
func (f *follower) abandon(ctx context.Context, why string) {
	f.w.logf("worker %s: %s: %s; stopping its local run %s", f.w.ID, f.id, why, f.localID)
	if _, err := f.w.killLocal(ctx, f.id, f.localID, f.store, nil); err != nil {
		f.w.logf("worker %s: stopping %s: %v", f.w.ID, f.localID, err)
	}
	f.scratch.remove()
}

// mirror copies a local session's state into a remote record, keeping
// the record's identity and genealogy; the local process ids mean nothing
// on another machine and are left out.
func mirror(r *Record, st *session.State) {
	keep := r.State
	r.State = *st
	r.ID, r.ProjectRoot, r.Cwd, r.CreatedAt = keep.ID, keep.ProjectRoot, keep.Cwd, keep.CreatedAt
	r.Depth, r.ParentID, r.ParentTool, r.ParentUnknown = keep.Depth, keep.ParentID, keep.ParentTool, keep.ParentUnknown
	r.SupervisorPID, r.PID, r.PGID = 0, 0, 0
	r.Detached = true
	r.Remote.LocalID = st.ID
}

// publishEvents sends the complete lines added to the local events.jsonl
// since the last call. Each call reads from the end of the last whole
// line sent, never from where the last read stopped: a line the run was
// writing when the disk filled is cut back and written again
// (events.Append), and its first bytes, read before the cut, must not
// join the line that replaces it.
func (f *follower) publishEvents(ctx context.Context) {
	if f.events == nil {
		e, err := os.Open(f.store.Path(f.localID, session.EventsFile))
		if err != nil {
			return
		}
		f.events = e
	}
	buf := make([]byte, 64<<10)
	var partial []byte
	for {
		n, err := f.events.ReadAt(buf, f.eventsOff+int64(len(partial)))
		partial = append(partial, buf[:n]...)
		for {
			i := bytes.IndexByte(partial, '\n')
			if i < 0 {
				break
			}
			line := partial[:i]
			// A publish whose acknowledgement was lost (a stream leader
			// lost) is sent again: its id, the line's place in the local
			// file, lets the stream drop the second copy.
			msgID := fmt.Sprintf("%s/events/%d", f.localID, f.eventsOff)
			if err := retry(ctx, func(ctx context.Context) error {
				_, err := f.w.C.JS.Publish(ctx, OutputSubject(f.id), line, jetstream.WithMsgID(msgID))
				return err
			}); err != nil {
				f.w.logf("worker %s: output of %s: %v", f.w.ID, f.id, err)
			}
			partial = partial[i+1:]
			f.eventsOff += int64(i + 1)
		}
		if n == 0 || err != nil {
			return
		}
	}
}

// publishBytes sends what was added to the local file name since the
// last call, in chunks of at most 64 KiB.
func (f *follower) publishBytes(ctx context.Context, file **os.File, name, subject string) {
	if *file == nil {
		fh, err := os.Open(f.store.Path(f.localID, name))
		if err != nil {
			return
		}
		*file = fh
	}
	buf := make([]byte, 64<<10)
	for {
		off, _ := (*file).Seek(0, io.SeekCurrent)
		n, err := (*file).Read(buf)
		if n > 0 {
			chunk := buf[:n]
			msgID := fmt.Sprintf("%s/%s/%d", f.localID, name, off) // see publishEvents
			if err := retry(ctx, func(ctx context.Context) error {
				_, err := f.w.C.JS.Publish(ctx, subject, chunk, jetstream.WithMsgID(msgID))
				return err
			}); err != nil {
				f.w.logf("worker %s: %s of %s: %v", f.w.ID, name, f.id, err)
			}
		}
		if n == 0 || err != nil {
			return
		}
	}
}
