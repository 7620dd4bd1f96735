package cluster

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/session"
	"github.com/csa-dev/csa/internal/verbatim"
)

// maxPrompt keeps a request within the servers' default message size
// (1 MiB) with room for the rest. A run that may be retried keeps its
// request in its record as well, JSON-quoted: half of that.
const maxPrompt = 900 << 10

// Submit queues req: its record is written first (pending), then the
// request is published, deduplicated by its id, so that a caller that
// dies after Submit leaves a run that goes on and can be waited for.
func (c *Cluster) Submit(ctx context.Context, req remoterun.Request, now time.Time) (*Record, error) {
	if _, ok := agents.Lookup(req.Tool); !ok {
		return nil, fmt.Errorf("unknown tool %q (valid tools: %s)", req.Tool, agents.Names())
	}
	if req.Retries < 0 || req.Retries > remoterun.MaxRetries {
		return nil, fmt.Errorf("retries must be 0 to %d, not %d", remoterun.MaxRetries, req.Retries)
	}
	if limit := maxPrompt / min(1+req.Retries, 2); len(req.Prompt) > limit {
		return nil, fmt.Errorf("the prompt is %d bytes: a remote run takes at most %d", len(req.Prompt), limit)
	}
	if req.ID == "" {
		req.ID = session.NewID(now)
	}
	req.Attempt = 1
	r := newRecord(req, now, now)
	rec, err := verbatim.Marshal(r)
	if err != nil {
		return nil, err
	}
	if err := retry(ctx, func(ctx context.Context) error {
		_, err := c.Sessions.Create(ctx, req.ID, rec)
		if err != nil && isKeyExists(err) {
			return nil // an earlier attempt of this call wrote it
		}
		return err
	}); err != nil {
		return nil, fmt.Errorf("cluster: record %s: %w", req.ID, err)
	}
	if err := c.publish(ctx, req); err != nil {
		return nil, err
	}
	return r, nil
}

// newRecord is the pending record of req, queued at queued.
func newRecord(req remoterun.Request, created, queued time.Time) *Record {
	r := &Record{
		State: session.State{
			ID: req.ID, Tool: req.Tool, Model: req.Model, Status: session.Pending, ProjectRoot: req.ProjectRoot,
			Cwd: req.Cwd, Depth: req.Depth, ParentID: req.ParentID, ParentTool: req.ParentTool,
			CreatedAt: created.UTC(), PromptBytes: len(req.Prompt), TimeoutMS: req.TimeoutMS, Detached: true,
		},
		Remote: Remote{Labels: req.Labels, QueuedAt: queued.UTC(), Tree: req.Tree, Retries: req.Retries,
			Attempt: req.Attempt},
	}
	if req.Retries > 0 {
		r.Remote.Request = &req
	}
	return r
}

// publish puts req on the work queue, deduplicated by its id and attempt
// (a second publish of the same attempt is dropped by the stream).
func (c *Cluster) publish(ctx context.Context, req remoterun.Request) error {
	body, err := verbatim.Marshal(&req)
	if err != nil {
		return err
	}
	msg := &nats.Msg{Subject: RunsSubject, Data: body, Header: nats.Header{}}
	msgID := req.ID
	if req.Attempt > 1 {
		msgID = fmt.Sprintf("%s.%d", req.ID, req.Attempt)
	}
	msg.Header.Set(jetstream.MsgIDHeader, msgID)
	if err := retry(ctx, func(ctx context.Context) error {
		_, err := c.JS.PublishMsg(ctx, msg)
		return err
	}); err != nil {
		return fmt.Errorf("cluster: queue %s: %w", req.ID, err)
	}
	return nil
}

func isKeyExists(err error) bool {
	return err != nil && (isWrongSequence(err) || err == jetstream.ErrKeyExists)
}
