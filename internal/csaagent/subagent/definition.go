package subagent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/frontmatter"
	"github.com/csa-dev/csa/internal/csaagent/plugin"
)

// GeneralPurpose is the built-in subagent, used when a Task call names no
// type. A definition of the same name in a directory replaces it.
const GeneralPurpose = "general-purpose"

// Definition is one subagent: Claude Code's `.claude/agents/*.md` format,
// YAML front matter then the system prompt.
//
//	---
//	name: code-reviewer
//	description: Reviews a change for bugs. Use after editing code.
//	tools: Read, Grep, Glob        # or a YAML list; absent: every tool but Task
//	model: inherit                 # or a provider/model spec, or an alias
//	---
//	You are a careful code reviewer...
type Definition struct {
	Name        string
	Description string
	// Tools names the tools it gets; nil means all of the main agent's
	// tools but Task (see the package doc for the depth rule).
	Tools []string
	// Model is "" or "inherit" for the caller's model, else a spec the
	// Config.ResolveModel callback turns into a provider and model.
	Model string
	// Prompt is appended to the standard system prompt. Load leaves it
	// empty: Instructions reads it from Path when the agent is used.
	Prompt string
	// Path is the file it was read from ("" for the built-in one).
	Path string
	// whenToUse is the front matter's when_to_use (or when-to-use): a
	// plugin agent's description when it has none.
	whenToUse string
	// onDisk: Prompt is left to Instructions, which reads Path.
	onDisk bool
}

// Builtin is the general-purpose definition.
func Builtin() Definition {
	return Definition{
		Name: GeneralPurpose,
		Description: "General-purpose agent for researching complex questions, searching for code, " +
			"and executing multi-step tasks. When you are searching for a keyword or file and are not " +
			"confident that you will find the right match in the first few tries, use this agent.",
		Prompt: "You are a subagent started by another agent for one task. Do it with the tools you have, " +
			"then answer with a complete, self-contained report: the agent that started you sees only " +
			"your final message.",
	}
}

// ManagedDir is where an organisation's definitions are (Claude Code's
// managed settings folder, /etc/claude-code, then .claude/agents).
const ManagedDir = "/etc/claude-code/.claude/agents"

// Sources are the folders definitions are read from. Any may be "".
type Sources struct {
	// Managed is the organisation's folder (ManagedDir; a test's own).
	Managed string
	// Home is the user's home (~/.claude/agents).
	Home string
	// ProjectRoot is the project's root (.claude/agents, .csa/agents).
	ProjectRoot string
	// Cwd, when below ProjectRoot, adds the .claude/agents of each
	// folder from the root down to it, as Claude Code reads them.
	Cwd string
	// Plugins are the enabled plugins, whose agents are named
	// "plugin:name" (plugins.go).
	Plugins []plugin.Plugin
}

// Dirs are the directories definitions are read from, in Claude Code's
// order of precedence, lowest first (a later one's definition replaces an
// earlier one's of the same name): the user's ~/.claude/agents, the
// project's .claude/agents (the root's, then those of the folders down
// to the working directory), csa's .csa/agents, then the managed folder,
// which wins over all, as Claude Code's policy does.
func (src Sources) Dirs() []string {
	var dirs []string
	if src.Home != "" {
		dirs = append(dirs, filepath.Join(src.Home, ".claude", "agents"))
	}
	if src.ProjectRoot != "" {
		for _, d := range between(src.ProjectRoot, src.Cwd) {
			dirs = append(dirs, filepath.Join(d, ".claude", "agents"))
		}
		dirs = append(dirs, filepath.Join(src.ProjectRoot, ".csa", "agents"))
	}
	if src.Managed != "" {
		dirs = append(dirs, src.Managed)
	}
	return dirs
}

// between lists root and each folder below it down to cwd, the shallowest
// first (Claude Code's order: the folder nearest the working directory
// wins); just root when cwd is not below it.
func between(root, cwd string) []string {
	out := []string{root}
	rel, err := filepath.Rel(root, cwd)
	if cwd == "" || err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return out
	}
	d := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, part)
		out = append(out, d)
	}
	return out
}

// Load reads the built-in general-purpose definition, then the plugins'
// (plugins.go), then those of src.Dirs(): every *.md file under each directory, in subfolders at
// any depth as Claude Code reads them (.claude/agents/team/x.md), in path
// order, a later definition replacing an earlier one of the same name.
// Missing directories are skipped, and so is a file whose front matter
// names no agent (a README beside the definitions), as Claude Code skips
// it. A file that cannot be read or parsed is left out and named in the
// error, which joins all such failures; the definitions returned are the
// good ones, so a caller may warn and go on.
func Load(src Sources) ([]Definition, error) {
	defs := []Definition{Builtin()}
	index := map[string]int{GeneralPurpose: 0}
	add := func(d Definition) {
		if i, ok := index[d.Name]; ok {
			defs[i] = d
			return
		}
		index[d.Name] = len(defs)
		defs = append(defs, d)
	}
	// Claude Code's precedence, lowest first: built-in, plugins, user,
	// project, managed.
	plugged, err := pluginDefinitions(src.Plugins, src.ProjectRoot)
	errs := []error{err}
	for _, d := range plugged {
		add(d)
	}
	for _, dir := range src.Dirs() {
		names, err := markdownFiles(dir)
		if err != nil {
			errs = append(errs, err)
		}
		for _, p := range names {
			d, err := readHead(p)
			if errors.Is(err, errNoName) {
				continue
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			add(d)
		}
	}
	return defs, errors.Join(errs...)
}

// markdownFiles lists the *.md files under dir at any depth, following
// symbolic links as Claude Code does, sorted; a missing dir has none.
func markdownFiles(dir string) ([]string, error) {
	var out []string
	var errs []error
	seen := map[string]bool{}
	var walk func(d, real string)
	walk = func(d, real string) {
		if seen[real] { // a link loop
			return
		}
		seen[real] = true
		entries, err := os.ReadDir(d)
		if err != nil {
			errs = append(errs, fmt.Errorf("subagent definitions %s: %w", d, err))
			return
		}
		for _, e := range entries {
			p, mode := filepath.Join(d, e.Name()), e.Type()
			childReal := filepath.Join(real, e.Name())
			if mode&fs.ModeSymlink != 0 { // only a link needs a stat and its target
				st, err := os.Stat(p)
				if err != nil {
					continue
				}
				mode = st.Mode().Type()
				if childReal, err = filepath.EvalSymlinks(p); err != nil {
					continue
				}
			}
			switch {
			case mode.IsDir():
				walk(p, childReal)
			case mode.IsRegular() && strings.HasSuffix(e.Name(), ".md"):
				out = append(out, p)
			}
		}
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil { // else a missing folder
		walk(dir, real)
	}
	sort.Strings(out)
	return out, errors.Join(errs...)
}

// errNoName is a file whose front matter names no agent: not a
// definition, so Load skips it.
var errNoName = errors.New("no name in the front matter")

// Parse reads one definition file; path is for messages and Path. The
// front matter is read by package frontmatter; unknown keys (color...) are
// ignored.
func Parse(path string, data []byte) (Definition, error) {
	d, err := parseFile(path, data, false)
	if err != nil {
		return Definition{}, err
	}
	return d, d.check()
}

// parseFile reads a definition's fields and prompt without checking
// them.
func parseFile(path string, data []byte, plugin bool) (Definition, error) {
	fm, body, err := frontmatter.Split(data)
	d, err := fromFront(path, fm, err, plugin)
	if err != nil {
		return Definition{}, err
	}
	d.Prompt = strings.TrimSpace(body)
	return d, nil
}

// fromFront is the definition a file's front matter gives (splitErr is
// Split's or ReadHead's error), without its prompt, unchecked. As in
// Claude Code, a user's or project's agent takes its name and description
// only as strings, the description's "\n" read as new lines; a plugin's
// takes numbers too, and trims its description.
func fromFront(path, fm string, splitErr error, plugin bool) (Definition, error) {
	bad := func(format string, args ...any) (Definition, error) {
		return Definition{}, fmt.Errorf("subagent definition %s: %s", path, fmt.Sprintf(format, args...))
	}
	err := splitErr
	if errors.Is(err, frontmatter.ErrNone) {
		return Definition{}, fmt.Errorf("subagent definition %s: %w (%w)", path, err, errNoName)
	}
	if err != nil {
		return bad("%v", err)
	}
	fields, err := frontmatter.Parse(fm)
	if err != nil {
		return bad("%v", err)
	}
	d := Definition{Path: path}
	for k, v := range fields {
		switch k {
		case "name":
			if plugin || v.IsText() {
				d.Name, err = v.Scalar(k)
			}
		case "description":
			switch {
			case plugin:
				d.Description, err = v.Scalar(k)
				d.Description = strings.TrimSpace(d.Description)
			case v.IsText():
				d.Description, err = v.Scalar(k)
				d.Description = strings.ReplaceAll(d.Description, `\n`, "\n")
			}
		case "when_to_use", "when-to-use":
			d.whenToUse, err = v.Scalar(k)
		case "model":
			d.Model, err = v.Scalar(k)
		case "tools":
			d.Tools = v.List()
			if d.Tools == nil {
				d.Tools = []string{} // "tools:" given empty: no tools
			}
			if len(d.Tools) == 1 && d.Tools[0] == "*" {
				d.Tools = nil
			}
		}
		if err != nil {
			return bad("%v", err)
		}
	}
	if _, given := fields["tools"]; !given {
		d.Tools = nil
	}
	return d, nil
}

// check refuses a definition without a name, with a name of several
// words, or without a description.
func (d Definition) check() error {
	switch {
	case d.Name == "":
		return fmt.Errorf("subagent definition %s: %w", d.Path, errNoName)
	case strings.ContainsAny(d.Name, " \t/\\"):
		return fmt.Errorf("subagent definition %s: name %q must be one word (letters, digits, - and _)", d.Path, d.Name)
	case d.Description == "":
		return fmt.Errorf("subagent definition %s: no description in the front matter (the Task tool shows it to the model)", d.Path)
	}
	return nil
}
