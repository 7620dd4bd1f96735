package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Replay gives emit every message of subject (one of session id's output
// subjects) from the first, in order. With follow it goes on until the
// session has ended and everything published before its end was given;
// a session whose worker is lost is settled crashed on the way (reaper),
// so that a follow never outlives a dead run.
func (c *Cluster) Replay(ctx context.Context, id, subject string, follow bool, reaper *Reaper, emit func([]byte) error) error {
	if _, _, err := c.Get(ctx, id); err != nil {
		return err
	}
	cons, err := c.JS.OrderedConsumer(ctx, OutputStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{subject}, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return fmt.Errorf("cluster: output of %s: %w", id, err)
	}
	if follow && reaper != nil {
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		reaper.Watch(wctx)
	}
	var seen uint64 // the stream sequence of the last message given
	next := func(wait time.Duration) (bool, error) {
		m, err := cons.Next(jetstream.FetchMaxWait(wait))
		if errors.Is(err, jetstream.ErrNoMessages) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
			return false, nil
		}
		if err != nil {
			if transient(err) {
				return false, nil
			}
			return false, fmt.Errorf("cluster: output of %s: %w", id, err)
		}
		md, err := m.Metadata()
		if err != nil {
			return false, err
		}
		seen = md.Sequence.Stream
		return true, emit(m.Data())
	}
	for {
		// The record before the output: the worker publishes a run's
		// output before it records its end, so once the record says
		// ended, the last message is already in the stream.
		r, _, err := c.Get(ctx, id)
		if err != nil {
			return err
		}
		if follow && !r.Status.Ended() && reaper != nil {
			if r, err = reaper.Check(ctx, r); err != nil {
				return err
			}
		}
		last, err := c.lastSeq(ctx, subject)
		if err != nil {
			return err
		}
		for seen < last {
			if _, err := next(time.Second); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		if !follow || r.Status.Ended() {
			return nil
		}
		// Wait for the next message (or a while, to look at the record
		// again).
		if _, err := next(200 * time.Millisecond); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// lastSeq is the stream sequence of subject's last message, 0 when it has
// none.
func (c *Cluster) lastSeq(ctx context.Context, subject string) (uint64, error) {
	var seq uint64
	err := retry(ctx, func(ctx context.Context) error {
		m, err := c.Output.GetLastMsgForSubject(ctx, subject)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			seq = 0
			return nil
		}
		if err != nil {
			return err
		}
		seq = m.Sequence
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("cluster: output %s: %w", subject, err)
	}
	return seq, nil
}
