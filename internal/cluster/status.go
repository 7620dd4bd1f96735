package cluster

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/session"
)

// Status is `csa cluster status`: the servers, the workers, the queue and
// the health of each stream.
type Status struct {
	Server  ServerInfo     `json:"server"`
	Workers []WorkerInfo   `json:"workers"`
	Queue   QueueInfo      `json:"queue"`
	Streams []StreamHealth `json:"streams"`
}

// ServerInfo is the server this client is connected to and those it knows.
type ServerInfo struct {
	Connected string   `json:"connected"`
	Name      string   `json:"name"`
	Cluster   string   `json:"cluster,omitempty"`
	Known     []string `json:"known"`
}

// WorkerInfo is one worker as its last heartbeat tells.
type WorkerInfo struct {
	ID            string            `json:"id"`
	Host          string            `json:"host"`
	Labels        map[string]string `json:"labels"`
	MaxConcurrent int               `json:"max_concurrent"`
	Running       []string          `json:"running"`
	LastHeartbeat time.Time         `json:"last_heartbeat"`
}

// QueueInfo is the work queue: runs waiting for a worker, and runs
// delivered to one that has not yet taken or refused them.
type QueueInfo struct {
	Waiting    uint64 `json:"waiting"`
	Delivering int    `json:"delivering"`
}

// StreamHealth is one stream (buckets are streams too) and its replicas.
type StreamHealth struct {
	Name     string        `json:"name"`
	Messages uint64        `json:"messages"`
	Leader   string        `json:"leader,omitempty"`
	Replicas []ReplicaInfo `json:"replicas"`
}

// ReplicaInfo is one follower of a stream's leader.
type ReplicaInfo struct {
	Name    string `json:"name"`
	Current bool   `json:"current"`
	Offline bool   `json:"offline,omitempty"`
	Lag     uint64 `json:"lag"`
}

// Status reads the cluster's state.
func (c *Cluster) Status(ctx context.Context) (*Status, error) {
	s := &Status{Server: ServerInfo{Connected: c.NC.ConnectedUrlRedacted(), Name: c.NC.ConnectedServerName(),
		Cluster: c.NC.ConnectedClusterName(), Known: c.NC.Servers()}}
	beats, err := c.Beats(ctx)
	if err != nil {
		return nil, err
	}
	s.Workers = []WorkerInfo{}
	for _, b := range beats {
		s.Workers = append(s.Workers, WorkerInfo{ID: b.ID, Host: b.Host, Labels: b.Labels, MaxConcurrent: b.MaxConcurrent,
			Running: b.Running, LastHeartbeat: b.At})
	}
	sort.Slice(s.Workers, func(i, j int) bool { return s.Workers[i].ID < s.Workers[j].ID })
	err = retry(ctx, func(ctx context.Context) error {
		cons, err := c.Runs.Consumer(ctx, WorkersConsumer)
		if err != nil {
			return err
		}
		info, err := cons.Info(ctx)
		if err != nil {
			return err
		}
		s.Queue = QueueInfo{Waiting: info.NumPending, Delivering: info.NumAckPending}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, name := range []string{RunsStream, OutputStream, "KV_" + SessionsBucket, "KV_" + WorkersBucket} {
		var info *jetstream.StreamInfo
		if err := retry(ctx, func(ctx context.Context) error {
			st, err := c.JS.Stream(ctx, name)
			if err == nil {
				info, err = st.Info(ctx)
			}
			return err
		}); err != nil {
			return nil, err
		}
		h := StreamHealth{Name: name, Messages: info.State.Msgs, Replicas: []ReplicaInfo{}}
		if ci := info.Cluster; ci != nil {
			h.Leader = ci.Leader
			for _, p := range ci.Replicas {
				h.Replicas = append(h.Replicas, ReplicaInfo{Name: p.Name, Current: p.Current, Offline: p.Offline, Lag: p.Lag})
			}
		}
		s.Streams = append(s.Streams, h)
	}
	return s, nil
}

// List reads every remote session's record (one ordered pass over the
// bucket, not a request per key).
func (c *Cluster) List(ctx context.Context) ([]*Record, error) {
	var out []*Record
	err := c.each(ctx, func() { out = out[:0] }, func(v []byte) {
		var r Record
		if decodeJSON(v, &r) == nil {
			out = append(out, &r)
		}
	})
	return out, err
}

// Listed is what `csa ps` shows of a remote session: its summary and
// where it runs.
type Listed struct {
	session.Summary
	Worker, LocalID string
}

// listedJSON is the part of a Record's JSON that makes a Listed: decoding
// only these fields is a fraction of the cost of the whole record.
// TestListedFields holds the tags to Record's.
type listedJSON struct {
	ID          string         `json:"id"`
	Tool        string         `json:"tool"`
	Model       string         `json:"model"`
	Status      session.Status `json:"state"`
	ProjectRoot string         `json:"project_root"`
	Depth       int            `json:"depth"`
	ParentID    string         `json:"parent_id"`
	CreatedAt   time.Time      `json:"created_at"`
	StartedAt   time.Time      `json:"started_at"`
	EndedAt     time.Time      `json:"ended_at"`
	ExitCode    *int           `json:"exit_code"`
	Reason      string         `json:"reason"`
	Interactive *struct{}      `json:"interactive"`
	Remote      struct {
		Worker  string `json:"worker"`
		LocalID string `json:"local_id"`
	} `json:"remote"`
}

// decodeListed decodes a record's value as a Listed.
func decodeListed(v []byte, l *Listed) error {
	var j listedJSON
	if err := json.Unmarshal(v, &j); err != nil {
		return err
	}
	*l = Listed{Summary: session.Summary{ID: j.ID, Tool: j.Tool, Model: j.Model, Status: j.Status,
		ProjectRoot: j.ProjectRoot, Depth: j.Depth, ParentID: j.ParentID, CreatedAt: j.CreatedAt,
		StartedAt: j.StartedAt, EndedAt: j.EndedAt, ExitCode: j.ExitCode, Reason: j.Reason,
		Interactive: j.Interactive != nil}, Worker: j.Remote.Worker, LocalID: j.Remote.LocalID}
	return nil
}

// ListSummaries is List for `csa ps`: every remote session's summary,
// decoded from the same one pass over the bucket.
func (c *Cluster) ListSummaries(ctx context.Context) ([]Listed, error) {
	var out []Listed
	err := c.each(ctx, func() { out = out[:0] }, func(v []byte) {
		var l Listed
		if decodeListed(v, &l) == nil {
			out = append(out, l)
		}
	})
	return out, err
}

// each calls fn with the current value of every key of the sessions
// bucket, through one watch; reset starts each attempt.
func (c *Cluster) each(ctx context.Context, reset func(), fn func([]byte)) error {
	return retry(ctx, func(ctx context.Context) error {
		reset()
		w, err := c.Sessions.WatchAll(ctx, jetstream.IgnoreDeletes())
		if err != nil {
			return err
		}
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case e := <-w.Updates():
				if e == nil {
					return nil // the current values are all in
				}
				fn(e.Value())
			}
		}
	})
}
