package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// Scopes are where a plugin is installed and enabled, most general first:
// the user's settings, the project's shared settings, the project's
// local (uncommitted) settings.
var Scopes = []string{"user", "project", "local"}

// Layout is where Claude Code keeps plugins for one user and project.
type Layout struct {
	Home, ProjectRoot string
}

func (l Layout) pluginsDir() string { return filepath.Join(l.Home, ".claude", "plugins") }

func (l Layout) knownMarketplaces() string {
	return filepath.Join(l.pluginsDir(), "known_marketplaces.json")
}

func (l Layout) installedPlugins() string {
	return filepath.Join(l.pluginsDir(), "installed_plugins.json")
}

// settings is the settings file of scope.
func (l Layout) settings(scope string) (string, error) {
	switch scope {
	case "user":
		return filepath.Join(l.Home, ".claude", "settings.json"), nil
	case "project", "local":
		if l.ProjectRoot == "" {
			return "", &InputError{fmt.Sprintf("scope %s needs a project", scope)}
		}
		name := "settings.json"
		if scope == "local" {
			name = "settings.local.json"
		}
		return filepath.Join(l.ProjectRoot, ".claude", name), nil
	}
	return "", &InputError{fmt.Sprintf("unknown scope %q (user, project or local)", scope)}
}

// projectPath is what installed_plugins.json records for scope.
func (l Layout) projectPath(scope string) string {
	if scope == "user" {
		return ""
	}
	return l.ProjectRoot
}

// InputError is a request that names something that does not exist or
// is malformed: the command's usage error.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputf(format string, args ...any) error { return &InputError{fmt.Sprintf(format, args...)} }

// update reads the JSON object at path (none: empty), lets change edit
// it, and writes it back by an atomic rename, so a reader (Claude Code)
// never sees half a file, and keys change does not touch are kept. The
// lock, one for the user's plugin files, keeps two csa-agents from losing
// each other's edits; it lives in ~/.claude/plugins so that no lock file
// appears in a project. newline ends the file with one (Claude Code's
// settings files have it; its plugin registries do not).
func (l Layout) update(path string, newline bool, change func(*object) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(l.pluginsDir(), 0o755); err != nil {
		return err
	}
	lock := flock.New(filepath.Join(l.pluginsDir(), ".csa-agent.lock"))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer func() { _ = lock.Unlock() }()
	var obj object
	if err := readJSON(path, &obj); err != nil {
		return err
	}
	if err := change(&obj); err != nil {
		return err
	}
	return writeJSON(path, obj, newline)
}

// writeJSON writes v as Claude Code does (two-space indent) by a rename.
func writeJSON(path string, v any, newline bool) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	data := buf.Bytes()
	if !newline {
		data = bytes.TrimSuffix(data, []byte("\n"))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// stamp is a time as Claude Code writes it (JavaScript's toISOString).
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
