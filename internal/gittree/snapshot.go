package gittree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Snapshot is a caller's working tree as a remote run takes it: the
// commit at HEAD and the diff from it to the working tree (staged,
// unstaged and untracked files that are not ignored).
type Snapshot struct {
	// Root is the top of the work tree; Subdir is the directory asked
	// for, relative to Root ("" for Root itself).
	Root   string
	Subdir string
	Commit string
	// Tree is the working state's tree (Commit's own when clean).
	Tree string
	// Diff is binary and applies with git apply; empty for a clean tree.
	Diff []byte
}

// Take snapshots the work tree holding dir. It writes blobs into the
// repository's object store (as git stash does) and nothing else: the
// user's index and working tree are left as they are, the working state
// is recorded in a temporary index file.
func (g *Git) Take(ctx context.Context, dir string) (*Snapshot, error) {
	top, err := g.Top(ctx, dir)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Root: top}
	if s.Subdir, err = rel(s.Root, dir); err != nil {
		return nil, err
	}
	out, err := g.run(ctx, s.Root, nil, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Root, ErrNoCommit)
	}
	s.Commit = line(out)

	tmp, err := os.CreateTemp("", "csa-index-")
	if err != nil {
		return nil, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	// Start from a copy of the user's index: its stat data spares
	// hashing every unchanged file again. The copy keeps the index's
	// modification time, which git compares with its entries' to find
	// files changed in the same clock tick as the index was written
	// ("racily clean"): a fresh time would hide such a change.
	out, err = g.run(ctx, s.Root, nil, nil, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return nil, err
	}
	if err := copyFile(line(out), tmp.Name()); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("copy of the index: %w", err)
		}
		os.Remove(tmp.Name()) // no index: git starts an empty one
	}
	tree, err := g.writeTree(ctx, s.Root, tmp.Name())
	if err != nil {
		return nil, err
	}
	s.Tree = tree
	if s.Diff, err = g.run(ctx, s.Root, nil, nil, append(diffArgs, s.Commit, tree)...); err != nil {
		return nil, err
	}
	return s, nil
}

// ErrNoRef is a commit or branch name that names no commit.
var ErrNoRef = errors.New("names no commit of the repository")

// At is the snapshot of a run that starts from ref (a commit or branch of
// the repository holding dir) instead of the caller's tree: ref's commit
// and no uncommitted changes, so nothing of the caller's tree is taken.
func (g *Git) At(ctx context.Context, dir, ref string) (*Snapshot, error) {
	top, err := g.Top(ctx, dir)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Root: top}
	if s.Subdir, err = rel(s.Root, dir); err != nil {
		return nil, err
	}
	// --end-of-options: a ref that starts with "-" is a name, never an option.
	out, err := g.run(ctx, s.Root, nil, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil || ref == "" {
		return nil, fmt.Errorf("%q %w", ref, ErrNoRef)
	}
	s.Commit = line(out)
	if out, err = g.run(ctx, s.Root, nil, nil, "rev-parse", "--verify", "--quiet", s.Commit+"^{tree}"); err != nil {
		return nil, err
	}
	s.Tree = line(out)
	return s, nil
}

// Bundle writes a git bundle of HEAD (all the history it needs) of the
// repository at root into file.
func (g *Git) Bundle(ctx context.Context, root, file string) error {
	_, err := g.run(ctx, root, nil, nil, "bundle", "create", "--quiet", file, "HEAD")
	return err
}

// rel is dir relative to root, with symbolic links resolved on both
// sides (git prints the real top directory).
func rel(root, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r, err := filepath.Rel(root, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return "", fmt.Errorf("%s is not inside the work tree %s", dir, root)
	}
	if r == "." {
		r = ""
	}
	return filepath.ToSlash(r), nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	return os.Chtimes(to, fi.ModTime(), fi.ModTime())
}
