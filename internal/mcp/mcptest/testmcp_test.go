package mcptest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every pin is installed (make mcp-servers, which make test runs first).
func TestInstalled(t *testing.T) {
	for _, name := range []string{Everything, Memory, Inspector} {
		bin := Require(t, name)
		if filepath.Base(bin) != bins[name] {
			t.Fatalf("%s: %s", name, bin)
		}
	}
}

// A missing or stale install is an error naming the command to run.
func TestMissingSaysHowToInstall(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("CSA_AGENTS_CACHE", cache)
	_, err := Bin(Memory)
	if err == nil || !strings.Contains(err.Error(), "make mcp-servers") {
		t.Fatalf("no install: %v", err)
	}
	dst := filepath.Join(cache, "mcp-test-servers", Memory)
	os.MkdirAll(filepath.Join(dst, "node_modules", ".bin"), 0o755)
	os.WriteFile(filepath.Join(dst, "node_modules", ".bin", bins[Memory]), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(dst, ".stamp"), []byte("0000\n"), 0o644)
	if _, err := Bin(Memory); err == nil || !strings.Contains(err.Error(), "another pin") {
		t.Fatalf("stale install: %v", err)
	}
	if _, err := Bin("nope"); err == nil {
		t.Fatal("an unknown package was found")
	}
}
