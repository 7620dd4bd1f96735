package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/remoterun"
)

// TreesBucket is the object store that carries working trees: a remote
// run's starting point on its way to the worker, and the agent's diff on
// its way back.
const TreesBucket = "csa_trees"

// treesTTL: a result not applied within it is gone (as the output).
const treesTTL = 30 * 24 * time.Hour

// shipTimeout bounds the upload or download of one tree: a bundle holds
// the whole history of HEAD.
const shipTimeout = 10 * time.Minute

func bundleObject(id string) string { return "tree/" + id + ".bundle" }
func diffObject(id string) string   { return "tree/" + id + ".diff" }

// ResultObject holds session id's diff once its run has ended.
func ResultObject(id string) string { return "result/" + id }

// ResultDiff is what the agent changed, as the worker recorded it.
type ResultDiff struct {
	// Object holds the diff ("" when it could not be stored: Error says
	// why, and the scratch tree was kept on the worker).
	Object string   `json:"object,omitempty"`
	Bytes  int      `json:"bytes"`
	Files  []string `json:"files"`
	// Changed counts the paths (Files lists the first maxListed).
	Changed int `json:"changed"`
	// ScratchKept is the worker's scratch tree when it was kept.
	ScratchKept string `json:"scratch_kept,omitempty"`
	Error       string `json:"error,omitempty"`
}

// Trees opens the object store of trees, creating it when missing.
func (c *Cluster) Trees(ctx context.Context) (jetstream.ObjectStore, error) {
	var st jetstream.ObjectStore
	err := retry(ctx, func(ctx context.Context) error {
		var err error
		st, err = c.JS.ObjectStore(ctx, TreesBucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			st, err = c.JS.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: TreesBucket,
				Replicas: replicas(c.NC), Storage: jetstream.FileStorage, TTL: treesTTL})
			if errors.Is(err, jetstream.ErrBucketExists) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				st, err = c.JS.ObjectStore(ctx, TreesBucket)
			}
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: object store %s: %w", TreesBucket, err)
	}
	return st, nil
}

// ShipTree takes the snapshot of the work tree holding dir and puts it
// where session id's worker finds it: the bundle of HEAD and the diff in
// the object store, or, with remote (a git URL that already holds HEAD),
// the diff alone.
func (c *Cluster) ShipTree(ctx context.Context, g *gittree.Git, id, dir, remote string) (*remoterun.TreeRef, error) {
	snap, err := g.Take(ctx, dir)
	if err != nil {
		return nil, err
	}
	ref := &remoterun.TreeRef{Commit: snap.Commit, Subdir: snap.Subdir, Remote: remote, DiffBytes: len(snap.Diff)}
	st, err := c.Trees(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, shipTimeout)
	defer cancel()
	if len(snap.Diff) > 0 {
		ref.Diff = diffObject(id)
		if err := retryTransfer(ctx, func(ctx context.Context) error {
			_, err := st.PutBytes(ctx, ref.Diff, snap.Diff)
			return err
		}); err != nil {
			return nil, fmt.Errorf("cluster: store the uncommitted diff: %w", err)
		}
	}
	if remote != "" {
		return ref, nil
	}
	tmp, err := os.MkdirTemp("", "csa-bundle-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	file := filepath.Join(tmp, "head.bundle")
	if err := g.Bundle(ctx, snap.Root, file); err != nil {
		return nil, err
	}
	ref.Bundle = bundleObject(id)
	var info *jetstream.ObjectInfo
	err = retryTransfer(ctx, func(ctx context.Context) error {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		info, err = st.Put(ctx, jetstream.ObjectMeta{Name: ref.Bundle}, f)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: store the bundle of HEAD: %w", err)
	}
	ref.BundleSize = int64(info.Size)
	return ref, nil
}

// DropTree deletes the objects of ref (after its checkout, or when the
// run was never queued); a failure only leaves them to the bucket's TTL.
func (c *Cluster) DropTree(ctx context.Context, ref *remoterun.TreeRef) {
	st, err := c.Trees(ctx)
	if err != nil {
		return
	}
	for _, name := range []string{ref.Bundle, ref.Diff} {
		if name != "" {
			retry(ctx, func(ctx context.Context) error { return st.Delete(ctx, name) })
		}
	}
}

// Errors of a result diff.
var (
	ErrNoTree   = errors.New("the session did not take a working tree (queued with --remote-cwd, or by an older csa)")
	ErrNotEnded = errors.New("the session has not ended: its diff is made when it ends")
	ErrNoDiff   = errors.New("the agent changed nothing")
)

// Result is session id's record and the agent's diff.
func (c *Cluster) Result(ctx context.Context, id string) (*Record, []byte, error) {
	r, _, err := c.Get(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case r.Remote.Tree == nil:
		return r, nil, ErrNoTree
	case r.Remote.Diff == nil && !r.Status.Ended():
		return r, nil, ErrNotEnded
	case r.Remote.Diff == nil:
		return r, nil, fmt.Errorf("session %s ended (%s) without a diff: the worker made none", id, r.Status)
	case r.Remote.Diff.Object == "":
		return r, nil, fmt.Errorf("the worker could not store the diff (%s); its scratch tree is kept on %s at %s",
			r.Remote.Diff.Error, r.Remote.Host, r.Remote.Diff.ScratchKept)
	case r.Remote.Diff.Bytes == 0:
		return r, nil, ErrNoDiff
	}
	st, err := c.Trees(ctx)
	if err != nil {
		return r, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, shipTimeout)
	defer cancel()
	var b []byte
	err = retryTransfer(ctx, func(ctx context.Context) error {
		var err error
		b, err = st.GetBytes(ctx, r.Remote.Diff.Object)
		return err
	})
	if err != nil {
		return r, nil, fmt.Errorf("cluster: the diff of %s: %w", id, err)
	}
	return r, b, nil
}
