// Package toolcache is csa's cache of agent programs at the versions csa
// pins (pins/<program>/package-lock.json, built into csa): where they are
// installed, how to install them, and how a configured program is found
// (the configured path, else PATH, else this cache). The tests and the demo
// use the same cache.
package toolcache

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
)

//go:embed pins
var pins embed.FS

// ErrNotInstalled means a program's pinned install is missing.
var ErrNotInstalled = errors.New("not installed")

// Dir is the cache: $CSA_AGENTS_CACHE, else ~/.cache/csa/agents. Each
// program has its own npm prefix in it.
func Dir() (string, error) {
	if dir := os.Getenv("CSA_AGENTS_CACHE"); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("agents cache: %w", err)
	}
	return filepath.Join(home, ".cache", "csa", "agents"), nil
}

// Bin returns the installed executable of program (a name of
// agents.Programs), or an error wrapping ErrNotInstalled.
func Bin(program string) (string, error) {
	if _, err := pinFile(program, "package.json"); err != nil {
		return "", err
	}
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	bin := binPath(dir, program)
	if !executable(bin) {
		return "", fmt.Errorf("%s %w in %s: run `csa tools install`", program, ErrNotInstalled, dir)
	}
	return bin, nil
}

func binPath(dir, program string) string {
	return filepath.Join(dir, program, "node_modules", ".bin", program)
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// Pinned is the version csa pins for program.
func Pinned(p agents.Program) (string, error) {
	b, err := pinFile(p.Name, "package.json")
	if err != nil {
		return "", err
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("pin of %s: %w", p.Name, err)
	}
	v, ok := pkg.Dependencies[p.Package]
	if !ok {
		return "", fmt.Errorf("pin of %s does not name %s", p.Name, p.Package)
	}
	return v, nil
}

func pinFile(program, name string) ([]byte, error) {
	if program == "" || strings.ContainsAny(program, "/.") {
		return nil, fmt.Errorf("no pinned program %q", program)
	}
	b, err := pins.ReadFile("pins/" + program + "/" + name)
	if err != nil {
		return nil, fmt.Errorf("no pinned program %q", program)
	}
	return b, nil
}

// Where a program was found.
const (
	FromConfig = "config" // the configured path (one with a slash)
	FromPATH   = "PATH"
	FromCache  = "cache" // csa's cache of pinned programs
)

// Location is a found program.
type Location struct {
	Path   string
	Source string // FromConfig, FromPATH or FromCache
}

// NotFoundError says where a program was looked for.
type NotFoundError struct {
	Configured string
	Program    agents.Program
	Reason     string
}

func (e *NotFoundError) Error() string {
	return e.Reason
}

// Locate finds the program configured as configured (tools.NAME.path or
// acp_path) for p: a path is taken as it is; a name is looked up on PATH,
// and when it is p's own name, in csa's cache of pinned programs next.
func Locate(configured string, p agents.Program) (Location, error) {
	if configured == "" {
		configured = p.Name
	}
	if strings.Contains(configured, "/") {
		abs, err := filepath.Abs(configured)
		if err != nil || !executable(abs) {
			return Location{}, &NotFoundError{configured, p, fmt.Sprintf("program %q is not an executable file", configured)}
		}
		return Location{abs, FromConfig}, nil
	}
	if path, err := exec.LookPath(configured); err == nil {
		abs, err := filepath.Abs(path)
		if err == nil {
			return Location{abs, FromPATH}, nil
		}
	}
	if configured != p.Name {
		return Location{}, &NotFoundError{configured, p, fmt.Sprintf("program %q not found on PATH", configured)}
	}
	bin, err := Bin(p.Name)
	if err != nil {
		return Location{}, &NotFoundError{configured, p, fmt.Sprintf("program %q not found on PATH nor in csa's cache of pinned programs", configured)}
	}
	return Location{bin, FromCache}, nil
}
