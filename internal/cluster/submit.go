package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/session"
)

// maxPrompt keeps a request within the servers' default message size
// (1 MiB) with room for the rest.
const maxPrompt = 900 << 10

// Submit queues req: its record is written first (pending), then the
// request is published, deduplicated by its id, so that a caller that
// dies after Submit leaves a run that goes on and can be waited for.
func (c *Cluster) Submit(ctx context.Context, req Request, now time.Time) (*Record, error) {
	if _, ok := agents.Lookup(req.Tool); !ok {
		return nil, fmt.Errorf("unknown tool %q (valid tools: %s)", req.Tool, agents.Names())
	}
	if len(req.Prompt) > maxPrompt {
		return nil, fmt.Errorf("the prompt is %d bytes: a remote run takes at most %d", len(req.Prompt), maxPrompt)
	}
	if req.ID == "" {
		req.ID = session.NewID(now)
	}
	r := &Record{
		State: session.State{
			ID: req.ID, Tool: req.Tool, Model: req.Model, Status: session.Pending, ProjectRoot: req.ProjectRoot,
			Cwd: req.Cwd, Depth: req.Depth, ParentID: req.ParentID, ParentTool: req.ParentTool,
			CreatedAt: now.UTC(), PromptBytes: len(req.Prompt), TimeoutMS: req.TimeoutMS, Detached: true,
		},
		Remote: Remote{Labels: req.Labels, QueuedAt: now.UTC(), Tree: req.Tree},
	}
	rec, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(req)
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
	msg := &nats.Msg{Subject: RunsSubject, Data: body, Header: nats.Header{}}
	msg.Header.Set(jetstream.MsgIDHeader, req.ID)
	if err := retry(ctx, func(ctx context.Context) error {
		_, err := c.JS.PublishMsg(ctx, msg)
		return err
	}); err != nil {
		return nil, fmt.Errorf("cluster: queue %s: %w", req.ID, err)
	}
	return r, nil
}

func isKeyExists(err error) bool {
	return err != nil && (isWrongSequence(err) || err == jetstream.ErrKeyExists)
}
