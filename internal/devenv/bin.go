// Package devenv prepares a HOME in which the real agent programs run
// offline, headless and against the scripted model server, and finds the
// pinned installs that scripts/install-agents.sh makes.
package devenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The programs, named as their binaries and their agents/<name> directories.
const (
	Claude    = "claude"
	Codex     = "codex"
	Gemini    = "gemini"
	OpenCode  = "opencode"
	ClaudeACP = "claude-code-acp"
	CodexACP  = "codex-acp"
)

// Programs lists every program devenv knows.
var Programs = []string{Claude, Codex, Gemini, OpenCode, ClaudeACP, CodexACP}

// ErrNotInstalled means the program's pinned install is missing.
var ErrNotInstalled = errors.New("agent program not installed")

// CacheDir is where scripts/install-agents.sh installs the programs:
// $CSA_AGENTS_CACHE, else ~/.cache/csa/agents.
func CacheDir() (string, error) {
	if dir := os.Getenv("CSA_AGENTS_CACHE"); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("agents cache: %w", err)
	}
	return filepath.Join(home, ".cache", "csa", "agents"), nil
}

// AgentBin returns the installed binary of program (one of Programs).
func AgentBin(program string) (string, error) {
	if !slices.Contains(Programs, program) {
		return "", fmt.Errorf("unknown agent program %q", program)
	}
	dir, err := CacheDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, program, "node_modules", ".bin", program)
	info, err := os.Stat(bin)
	if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%w: %s has no %s; run scripts/install-agents.sh", ErrNotInstalled, dir, program)
	}
	return bin, nil
}
