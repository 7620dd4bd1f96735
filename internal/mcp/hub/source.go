package hub

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/config"
)

// Source is where the hub finds the servers a client sees: csa's own
// configuration (the global file and the client's project file), or a
// hub config file (csa-mcp hub --config). It is asked when a client first
// needs its servers, so a changed file is seen by the next client.
type Source interface {
	Servers(project string) (map[string]ServerConfig, error)
}

// Static is a fixed Config as a Source.
func Static(c *Config) Source { return staticSource{c} }

type staticSource struct{ c *Config }

func (s staticSource) Servers(string) (map[string]ServerConfig, error) { return s.c.Servers, nil }

// FileSource is a hub config file ([servers.NAME] tables), read again
// when it changes.
func FileSource(path string) Source {
	return &watched{load: func(string) (map[string]ServerConfig, error) {
		c, err := LoadConfig(path)
		if err != nil {
			return nil, err
		}
		return c.Servers, nil
	}, files: func(string) []string { return []string{path} }}
}

// CSAConfig is csa's configuration as a Source: [mcp.servers] of the
// global file at global (config.GlobalPath()) merged with the project
// file of the client's project root, as csa merges them for a run there.
// Each project's result is kept until one of its two files changes.
func CSAConfig(global string) Source {
	return &watched{load: func(project string) (map[string]ServerConfig, error) {
		l, err := config.LoadFiles(global, config.ProjectPath(project))
		if err != nil {
			return nil, fmt.Errorf("csa's configuration: %w", err)
		}
		return l.Config.MCP.Servers, nil
	}, files: func(project string) []string { return []string{global, config.ProjectPath(project)} }}
}

// IdleExit is mcp.idle_exit of the global file at global: how long the hub
// waits with no client before it exits (0: it does not).
func IdleExit(global string) (time.Duration, error) {
	l, err := config.LoadFiles(global, "")
	if err != nil {
		return config.Default().MCP.IdleExit.Std(), err
	}
	return l.Config.MCP.IdleExit.Std(), nil
}

// watched loads a project's servers again when one of its files changes
// (a file's stamp: its modification time, size and existence).
type watched struct {
	load  func(project string) (map[string]ServerConfig, error)
	files func(project string) []string

	mu    sync.Mutex
	cache map[string]loaded // by project
}

type loaded struct {
	stamps  []stamp
	servers map[string]ServerConfig
	err     error
}

type stamp struct {
	mod  time.Time
	size int64
	ok   bool
}

func (w *watched) Servers(project string) (map[string]ServerConfig, error) {
	if project != "" {
		if !filepath.IsAbs(project) {
			return nil, fmt.Errorf("project %q is not an absolute path", project)
		}
		project = filepath.Clean(project)
	}
	stamps := stampsOf(w.files(project))
	w.mu.Lock()
	defer w.mu.Unlock()
	if l, ok := w.cache[project]; ok && slices.Equal(l.stamps, stamps) {
		return l.servers, l.err
	}
	servers, err := w.load(project)
	if w.cache == nil {
		w.cache = map[string]loaded{}
	}
	w.cache[project] = loaded{stamps, servers, err}
	return servers, err
}

// forget drops what is kept of project (its directory is gone).
func (w *watched) forget(project string) {
	w.mu.Lock()
	delete(w.cache, project)
	w.mu.Unlock()
}

func stampsOf(files []string) []stamp {
	out := make([]stamp, len(files))
	for i, f := range files {
		if f == "" {
			continue
		}
		if fi, err := os.Stat(f); err == nil {
			out[i] = stamp{fi.ModTime(), fi.Size(), true}
		}
	}
	return out
}

// definitionHash tells server definitions apart: two clients whose
// configurations define a server differently get two backends, and
// identical definitions share one.
func definitionHash(s ServerConfig) string {
	b, _ := json.Marshal(s)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}
