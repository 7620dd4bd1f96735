package toolcache

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/csa-dev/csa/internal/agents"
)

// npmLayout lays out pkg as npm installs it under dir, its program a
// link in node_modules/.bin to a script of the package that fails if it
// is ever run, and returns the link.
func npmLayout(t *testing.T, dir, pkg, name, version string) string {
	t.Helper()
	pdir := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg))
	must(t, os.MkdirAll(filepath.Join(pdir, "bundle"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "node_modules", ".bin"), 0o755))
	must(t, os.WriteFile(filepath.Join(pdir, "package.json"), []byte(`{"name": "`+pkg+`", "version": "`+version+`", "bin": {"`+name+`": "bundle/main.js"}}`), 0o644))
	must(t, os.WriteFile(filepath.Join(pdir, "bundle", "main.js"), []byte("#!/bin/sh\necho started anyway; exit 7\n"), 0o755))
	link := filepath.Join(dir, "node_modules", ".bin", name)
	must(t, os.Symlink(filepath.Join("..", filepath.FromSlash(pkg), "bundle", "main.js"), link))
	return link
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestVersion: a program of its npm package has the package's version,
// the program never started (gemini's slow --version lost it to the time
// limit); another program says it with --version, its first line.
func TestVersion(t *testing.T) {
	dir := t.TempDir()
	gemini := agents.Program{Name: "gemini", Package: "@google/gemini-cli"}
	link := npmLayout(t, dir, gemini.Package, gemini.Name, "0.61.0")
	if v, err := Version(context.Background(), link, gemini); err != nil || v != "0.61.0" {
		t.Errorf("npm program: %q, %v; want 0.61.0", v, err)
	}

	// A script of another package than the tool's: its --version.
	other := agents.Program{Name: "gemini", Package: "@someone/else"}
	if v, err := Version(context.Background(), link, other); err == nil || v != "started anyway" {
		t.Errorf("another package's program: %q, %v; want its --version run (exit 7)", v, err)
	}

	plain := filepath.Join(dir, "codex")
	must(t, os.WriteFile(plain, []byte("#!/bin/sh\necho \"codex-cli 1.2.3\"\necho more\n"), 0o755))
	if v, err := Version(context.Background(), plain, agents.Program{Name: "codex", Package: "@openai/codex"}); err != nil || v != "codex-cli 1.2.3" {
		t.Errorf("plain program: %q, %v; want codex-cli 1.2.3", v, err)
	}
}
