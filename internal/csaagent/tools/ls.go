package tools

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// lsMax caps the entries LS lists.
const lsMax = 1000

// LS lists a directory.
type LS struct{ base[lsInput] }

// NewLS is the LS tool.
func NewLS() *LS {
	return &LS{base[lsInput]{"LS", lsDesc}}
}

type lsInput struct {
	Path   string   `json:"path" jsonschema:"The absolute path to the directory to list (must be absolute, not relative)"`
	Ignore []string `json:"ignore,omitempty" jsonschema:"List of glob patterns to ignore"`
}

const lsDesc = `Lists files and directories in a given path. The path parameter should be an absolute path (a relative one is taken from the working directory). You can optionally provide an array of glob patterns to ignore with the ignore parameter (matched against entry names, e.g. "*.log", "build"). Directories are shown with a trailing "/", symlinks with " -> target". You should generally prefer the Glob and Grep tools, if you know which directories to search.`

func (*LS) ConcurrencySafe(json.RawMessage) bool { return true }
func (*LS) ReadOnly(json.RawMessage) bool        { return true }
func (*LS) Subject(in json.RawMessage) string    { return field(in, "path") }

func (l *LS) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := l.parse(input)
	if !ok {
		return bad, nil
	}
	if in.Path == "" {
		in.Path = env.Cwd
	}
	abs, err := env.Resolve(in.Path)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	for _, pat := range in.Ignore {
		if !doublestar.ValidatePattern(pat) {
			return tool.Errorf("invalid ignore pattern %q", pat), nil
		}
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return tool.Errorf("cannot list %s: %v", abs, unwrapPath(err)), nil
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var b strings.Builder
	b.WriteString("- " + abs + "/\n")
	n := 0
	for _, e := range entries {
		if ignored(e.Name(), in.Ignore) {
			continue
		}
		if n == lsMax {
			b.WriteString("  (more entries not shown; use Glob to narrow)\n")
			break
		}
		n++
		name := e.Name()
		switch {
		case e.IsDir():
			name += "/"
		case e.Type()&os.ModeSymlink != 0:
			if t, err := os.Readlink(abs + "/" + name); err == nil {
				name += " -> " + t
			}
		}
		b.WriteString("  - " + name + "\n")
	}
	if n == 0 {
		b.WriteString("  (empty)\n")
	}
	return tool.Result{Output: b.String()}, nil
}

func ignored(name string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := doublestar.Match(strings.TrimSuffix(p, "/"), name); ok {
			return true
		}
	}
	return false
}
