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
	"github.com/csa-dev/csa/internal/csaenv"
)

//go:embed pins
var pins embed.FS

// ErrNotInstalled means a program's pinned install is missing.
var ErrNotInstalled = errors.New("not installed")

// Dir is the cache: $CSA_AGENTS_CACHE, else ~/.cache/csa/agents. Each
// program has its own npm prefix in it.
func Dir() (string, error) {
	if dir := os.Getenv(csaenv.AgentsCache); dir != "" {
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

// Own is p as csa itself installs it: the pinned install in the cache (as
// Bin), or, for a program built with csa, the one beside csa's own
// executable, else on PATH. A missing one is an error wrapping
// ErrNotInstalled.
func Own(p agents.Program) (string, error) {
	if !p.BuiltWithCSA() {
		return Bin(p.Name)
	}
	loc, err := Locate("", p)
	if err != nil {
		return "", fmt.Errorf("%s %w: %v (make build or make install puts it beside csa)", p.Name, ErrNotInstalled, err)
	}
	return loc.Path, nil
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
	// FromCSA: beside csa's own executable, where make build and make
	// install put a program built with csa (agents.Program.BuiltWithCSA).
	FromCSA = "built with csa"
)

// Location is a found program.
type Location struct {
	Path   string
	Source string // FromConfig, FromPATH, FromCache or FromCSA
}

// InstallHint is how to install the program of tool t: csa tools install
// for the pinned npm packages; make install (from csa's source tree) for a
// program built with csa.
func InstallHint(t agents.Tool, p agents.Program) string {
	if p.BuiltWithCSA() {
		return "make install"
	}
	return "csa tools install " + string(t)
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
// and when it is p's own name, in csa's cache of pinned programs next. A
// program built with csa is looked for beside csa's own executable first,
// then on PATH: the one built with this csa wins over another on PATH.
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
	own := p.BuiltWithCSA() && configured == p.Name
	if own {
		if bin, ok := besideCSA(p.Name); ok {
			return Location{bin, FromCSA}, nil
		}
	}
	if path, err := exec.LookPath(configured); err == nil {
		abs, err := filepath.Abs(path)
		if err == nil {
			return Location{abs, FromPATH}, nil
		}
	}
	if own {
		return Location{}, &NotFoundError{configured, p, fmt.Sprintf("program %q, built with csa, not found beside csa's executable nor on PATH", configured)}
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

// csaExecutable is csa's own executable (a variable for tests).
var csaExecutable = os.Executable

// besideCSA finds program in the directory of csa's own executable (its
// real directory: os.Executable resolves a symbolic link to csa).
func besideCSA(program string) (string, bool) {
	exe, err := csaExecutable()
	if err != nil {
		return "", false
	}
	bin := filepath.Join(filepath.Dir(exe), program)
	return bin, executable(bin)
}
