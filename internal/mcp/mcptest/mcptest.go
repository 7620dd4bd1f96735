// Package mcptest finds the npm MCP servers and client csa's tests and
// benchmarks use: server-everything, server-memory (stateful) and the MCP
// Inspector, pinned in pins/NAME and installed by `make mcp-servers`
// (scripts/mcp-servers.sh) into the agents' cache, outside git. They are
// test dependencies, not programs csa runs.
package mcptest

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/toolcache"
)

//go:embed pins
var pins embed.FS

// The pinned packages, by their directory in pins.
const (
	Everything = "server-everything" // @modelcontextprotocol/server-everything
	Memory     = "server-memory"     // @modelcontextprotocol/server-memory: a knowledge graph in a file
	Inspector  = "inspector"         // @modelcontextprotocol/inspector: its --cli mode is a third-party client
)

// bins is each package's executable in node_modules/.bin.
var bins = map[string]string{
	Everything: "mcp-server-everything",
	Memory:     "mcp-server-memory",
	Inspector:  "mcp-inspector",
}

// InstallCommand installs every pin (run at the repository's root).
const InstallCommand = "make mcp-servers"

// Dir is where they are installed: mcp-test-servers in csa's agents cache
// ($CSA_AGENTS_CACHE, else ~/.cache/csa/agents).
func Dir() (string, error) {
	d, err := toolcache.Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "mcp-test-servers"), nil
}

// Bin is the executable of the pinned package name, installed from the
// pin as it is now (a stale install is as missing as none).
func Bin(name string) (string, error) {
	exe, ok := bins[name]
	if !ok {
		return "", fmt.Errorf("no pinned MCP package %q", name)
	}
	pkg, err1 := pins.ReadFile("pins/" + name + "/package.json")
	lock, err2 := pins.ReadFile("pins/" + name + "/package-lock.json")
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("pin of %s: %v %v", name, err1, err2)
	}
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	missing := func(why string) error {
		return fmt.Errorf("%s is not installed in %s (%s): run `%s`", name, dir, why, InstallCommand)
	}
	stamp, err := os.ReadFile(filepath.Join(dir, name, ".stamp"))
	if err != nil {
		return "", missing("no install")
	}
	if strings.TrimSpace(string(stamp)) != toolcache.Fingerprint(pkg, lock) {
		return "", missing("installed from another pin")
	}
	bin := filepath.Join(dir, name, "node_modules", ".bin", exe)
	if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o111 == 0 {
		return "", missing(bin + " is missing")
	}
	return bin, nil
}

// Require is Bin for a test: a missing package fails it, saying how to
// install it.
func Require(t testing.TB, name string) string {
	t.Helper()
	bin, err := Bin(name)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
