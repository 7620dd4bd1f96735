package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/csa-dev/csa/internal/gittree"
	"github.com/csa-dev/csa/internal/remoterun"
	"github.com/csa-dev/csa/internal/statedir"
)

// maxListed bounds the paths a record lists (the record is one message).
const maxListed = 200

// scratch is one remote run's working tree on its worker.
type scratch struct {
	git *gittree.Git
	s   *gittree.Scratch
	cwd string
}

// scratchDir is where session id's tree is checked out on this worker:
// under its state directory, one directory per session.
func (w *Worker) scratchDir(id string) string {
	return filepath.Join(statedir.ScratchTrees(w.Local.Getenv), id)
}

// checkout makes req's working tree on this machine; its inputs are
// dropped from the object store once they are checked out.
func (w *Worker) checkout(ctx context.Context, req remoterun.Request) (*scratch, error) {
	ref := req.Tree
	g := &gittree.Git{Env: gittree.Clean(w.Local.Env), NoHooks: true}
	dir := w.scratchDir(req.ID)
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	st, err := w.C.Trees(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, shipTimeout)
	defer cancel()
	var diff []byte
	if ref.Diff != "" {
		if err = retryTransfer(ctx, func(ctx context.Context) error {
			var err error
			diff, err = st.GetBytes(ctx, ref.Diff)
			return err
		}); err != nil {
			return nil, fmt.Errorf("the uncommitted diff: %w", err)
		}
	}
	source := ref.Remote
	if ref.Bundle != "" {
		source = dir + ".bundle"
		defer os.Remove(source)
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return nil, err
		}
		if err := retryTransfer(ctx, func(ctx context.Context) error { return st.GetFile(ctx, ref.Bundle, source) }); err != nil {
			return nil, fmt.Errorf("the bundle of %s: %w", ref.Commit, err)
		}
	}
	s, err := g.Checkout(ctx, dir, source, ref.Commit, diff)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if req.Retries == 0 { // else kept for the next attempt, dropped once the run ended
		w.C.DropTree(ctx, ref)
	}
	return &scratch{git: g, s: s, cwd: filepath.Join(dir, filepath.FromSlash(ref.Subdir))}, nil
}

// finish stores the agent's diff as result/ID and removes the scratch
// tree; a diff that cannot be made or stored keeps the tree (nothing the
// agent did is lost) and says so.
func (w *Worker) finish(ctx context.Context, id string, sc *scratch) *ResultDiff {
	diff, files, err := sc.git.Result(ctx, sc.s)
	if err == nil {
		err = w.putResult(ctx, id, diff)
	}
	if err != nil {
		w.logf("worker %s: the diff of %s: %v (its tree is kept at %s)", w.ID, id, err, sc.s.Dir)
		return &ResultDiff{Error: err.Error(), ScratchKept: sc.s.Dir, Files: []string{}}
	}
	if err := os.RemoveAll(sc.s.Dir); err != nil {
		w.logf("worker %s: removing %s: %v", w.ID, sc.s.Dir, err)
	}
	if files == nil {
		files = []string{}
	}
	r := &ResultDiff{Object: ResultObject(id), Bytes: len(diff), Files: files, Changed: len(files)}
	if len(files) > maxListed {
		r.Files = files[:maxListed]
	}
	return r
}

func (w *Worker) putResult(ctx context.Context, id string, diff []byte) error {
	st, err := w.C.Trees(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, shipTimeout)
	defer cancel()
	return retryTransfer(ctx, func(ctx context.Context) error {
		_, err := st.PutBytes(ctx, ResultObject(id), diff)
		return err
	})
}

// remove deletes a scratch tree whose run never started.
func (sc *scratch) remove() {
	if sc != nil {
		os.RemoveAll(sc.s.Dir)
	}
}
