package cmdutil

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/runner"
	"github.com/csa-dev/csa/internal/session"
)

// ResolveAll turns id prefixes into full ids, in order, without duplicates.
func ResolveAll(store *session.Store, prefixes []string) ([]string, error) {
	seen := map[string]bool{}
	var ids []string
	for _, p := range prefixes {
		id, err := store.Resolve(p)
		if err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// Current loads a session and settles whether its supervisor still lives.
func (f *Factory) Current(ctx context.Context, store *session.Store, id string) (*session.State, error) {
	st, err := store.Load(id)
	if err != nil {
		return nil, err
	}
	return runner.Reconcile(ctx, store, st, f.Now()), nil
}

// GuardLineage refuses to act on the calling session or its ancestors: a
// sub-agent must not kill, remove or resume the runs it lives under.
func (f *Factory) GuardLineage(store *session.Store, verb string, ids []string) error {
	self := f.Getenv(csaenv.SessionID)
	if self == "" {
		return nil
	}
	lineage := map[string]bool{self: true}
	for _, a := range store.Ancestors(self) {
		lineage[a] = true
	}
	if p := f.Getenv(csaenv.ParentSession); p != "" {
		lineage[p] = true
	}
	for _, id := range ids {
		if lineage[id] {
			if id == self {
				return Refused("forbidden", fmt.Errorf("cannot %s session %s: it is the calling session itself", verb, id))
			}
			return Refused("forbidden", fmt.Errorf("cannot %s session %s: it is an ancestor of the calling session %s", verb, id, self))
		}
	}
	return nil
}

// CwdSession resolves a prefix in the current project's store and returns
// the store and the session's current state (a dead supervisor settled).
func (f *Factory) CwdSession(ctx context.Context, prefix string) (*session.Store, *session.State, error) {
	store, _, err := f.CwdStore()
	if err != nil {
		return nil, nil, err
	}
	id, err := store.Resolve(prefix)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Current(ctx, store, id)
	if err != nil {
		return nil, nil, err
	}
	return store, st, nil
}

// SessionsArg opens the store a hidden command (csa __supervise, csa
// __pane) is handed by absolute path, and checks the session id it names.
func SessionsArg(sessionsDir, idArg string) (*session.Store, string, error) {
	if !filepath.IsAbs(sessionsDir) {
		return nil, "", Usagef("--sessions must be an absolute path")
	}
	id, err := session.NormalizePrefix(idArg)
	if err != nil {
		return nil, "", err
	}
	store, err := session.Open(sessionsDir)
	return store, id, err
}
