// Package prompt builds csa-agent's system prompt: who it is, the
// environment it works in (working directory, git state, date, platform)
// and the project's instruction files.
package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Instruction files, read from the user's home and from the project root
// down to the working directory (the nearer file last, so it wins).
var instructionFiles = []string{"AGENTS.md", "CLAUDE.md"}

// maxInstructionBytes keeps one runaway file from filling the context.
const maxInstructionBytes = 64 << 10

// Env is what the prompt says about the environment.
type Env struct {
	Cwd   string
	Home  string // "" to skip the user's own instructions
	Roots []string
	Now   time.Time
	Mode  string // permission mode
	// Extra is appended last (a subagent's own instructions).
	Extra string
}

const identity = `You are csa-agent, a coding agent working in the user's project through tools.
Do what was asked, no more. Prefer the dedicated tools (Read, Edit, Glob, Grep) to shell commands for files.
Read a file before editing it. Keep answers short; when done, say what you did and what you found.
When several tool calls are independent, make them in the same turn: they run in parallel.`

// Build returns the system prompt.
func Build(e Env) string {
	var b strings.Builder
	b.WriteString(identity)
	b.WriteString("\n\n<env>\n")
	fmt.Fprintf(&b, "Working directory: %s\n", e.Cwd)
	root, branch, isRepo := gitState(e.Cwd)
	fmt.Fprintf(&b, "Is directory a git repo: %v\n", isRepo)
	if isRepo {
		fmt.Fprintf(&b, "Git root: %s\n", root)
		if branch != "" {
			fmt.Fprintf(&b, "Git branch: %s\n", branch)
		}
	}
	for _, r := range e.Roots {
		if r != e.Cwd {
			fmt.Fprintf(&b, "Additional directory: %s\n", r)
		}
	}
	fmt.Fprintf(&b, "Platform: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "Today's date: %s\n", e.Now.Format("2006-01-02"))
	if e.Mode != "" {
		fmt.Fprintf(&b, "Permission mode: %s\n", e.Mode)
	}
	b.WriteString("</env>\n")
	for _, f := range instructions(e.Home, root, e.Cwd) {
		fmt.Fprintf(&b, "\nInstructions from %s:\n<instructions>\n%s\n</instructions>\n", f.path, f.text)
	}
	if e.Extra != "" {
		b.WriteString("\n" + e.Extra + "\n")
	}
	return b.String()
}

type file struct{ path, text string }

// instructions reads the instruction files: the user's (~/.claude/CLAUDE.md,
// ~/.config/csa-agent/AGENTS.md), then each directory from the project root
// (or cwd without one) down to cwd.
func instructions(home, root, cwd string) []file {
	var paths []string
	if home != "" {
		paths = append(paths, filepath.Join(home, ".claude", "CLAUDE.md"), filepath.Join(home, ".config", "csa-agent", "AGENTS.md"))
	}
	for _, dir := range chain(root, cwd) {
		for _, name := range instructionFiles {
			paths = append(paths, filepath.Join(dir, name))
		}
	}
	var out []file
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || len(strings.TrimSpace(string(data))) == 0 {
			continue
		}
		if len(data) > maxInstructionBytes {
			data = append(data[:maxInstructionBytes], "\n(truncated)"...)
		}
		out = append(out, file{p, strings.TrimSpace(string(data))})
	}
	return out
}

// chain lists root, then each directory below it down to cwd.
func chain(root, cwd string) []string {
	if root == "" {
		return []string{cwd}
	}
	rel, err := filepath.Rel(root, cwd)
	if err != nil || strings.HasPrefix(rel, "..") {
		return []string{cwd}
	}
	dirs := []string{root}
	if rel == "." {
		return dirs
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		dirs = append(dirs, cur)
	}
	return dirs
}
