// Package prompt builds csa-agent's system prompt: who it is, the
// environment it works in (working directory, git state, date, platform)
// and the project's instruction files.
package prompt

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/outputstyle"
)

// Env is what the prompt says about the environment.
type Env struct {
	Cwd   string
	Home  string // "" to skip the user's own instructions
	Roots []string
	Now   time.Time
	Mode  string // permission mode
	// ExternalImports lets the project's memory files import files
	// outside Cwd, as Claude Code does once the user approved it.
	ExternalImports bool
	// Extra is appended last (a subagent's own instructions).
	Extra string
	// Style is the selected output style; nil for none.
	Style *outputstyle.Style
}

const identity = `You are csa-agent, a coding agent working in the user's project through tools.
Do what was asked, no more. Prefer the dedicated tools (Read, Edit, Glob, Grep) to shell commands for files.
Read a file before editing it. Keep answers short; when done, say what you did and what you found.
When several tool calls are independent, make them in the same turn: they run in parallel.`

// styledIdentity replaces identity under an output style, as Claude Code
// replaces its opening: the style says how to answer. The coding guidance
// (codingGuidance) follows only when the style keeps it.
const (
	styledIdentity = `You are csa-agent, an agent working in the user's project through tools, who answers according to the "Output Style" below.`
	codingGuidance = `Do what was asked, no more. Read a file before editing it. Keep answers short; when done, say what you did and what you found.`
	toolGuidance   = `Prefer the dedicated tools (Read, Edit, Glob, Grep) to shell commands for files.
When several tool calls are independent, make them in the same turn: they run in parallel.`
)

// Build returns the system prompt.
func Build(e Env) string {
	var b strings.Builder
	if e.Style == nil {
		b.WriteString(identity)
	} else {
		b.WriteString(styledIdentity + "\n")
		if e.Style.KeepCodingInstructions {
			b.WriteString(codingGuidance + "\n")
		}
		b.WriteString(toolGuidance)
	}
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
	if e.Style != nil {
		// Claude Code's own heading, so a style reads the same to the
		// model in both programs.
		fmt.Fprintf(&b, "\n# Output Style: %s\n%s\n", e.Style.Name, e.Style.Prompt)
	}
	for _, f := range memoryFiles(e.Home, e.Cwd, e.ExternalImports) {
		fmt.Fprintf(&b, "\nInstructions from %s:\n<instructions>\n%s\n</instructions>\n", f.path, f.text)
	}
	if e.Extra != "" {
		b.WriteString("\n" + e.Extra + "\n")
	}
	return b.String()
}

// file is one memory file's text; globs limit a rule to the paths they
// match (gitignore patterns), nil for a file that always applies.
type file struct {
	path, text string
	globs      []string
}
