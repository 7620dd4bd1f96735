package modelserver

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/csa-dev/csa/internal/shellquote"
)

// The programs' own write and shell tools, as they offer them. The first
// tool a request offers wins, so one script drives every program.
var writeTools = []struct {
	name string
	args func(path, content string) map[string]any
}{
	{"Write", func(p, c string) map[string]any { return map[string]any{"file_path": p, "content": c} }},           // claude
	{"mcp__acp__Write", func(p, c string) map[string]any { return map[string]any{"file_path": p, "content": c} }}, // claude-code-acp
	{"write_file", func(p, c string) map[string]any { return map[string]any{"file_path": p, "content": c} }},      // gemini
	{"write", func(p, c string) map[string]any { return map[string]any{"filePath": p, "content": c} }},            // opencode
}

var shellTools = []struct {
	name string
	args func(cmd string) map[string]any
}{
	{"Bash", func(c string) map[string]any { return map[string]any{"command": c, "description": "scripted command"} }}, // claude, claude-code-acp
	// codex; not a login shell, which would reset PATH from /etc/profile
	// and lose the caller's tools (csa among them)
	{"exec_command", func(c string) map[string]any { return map[string]any{"cmd": c, "login": false} }},
	{"shell", func(c string) map[string]any { return map[string]any{"command": []string{"bash", "-lc", c}} }},                       // older codex
	{"run_shell_command", func(c string) map[string]any { return map[string]any{"command": c, "description": "scripted command"} }}, // gemini
	{"bash", func(c string) map[string]any { return map[string]any{"command": c} }},                                                 // opencode
}

// resolveCalls turns a step's tool calls into the program's own.
func resolveCalls(st *Step, req *request) ([]*call, error) {
	if len(st.Calls) > 0 {
		var out []*call
		for _, c := range st.Calls {
			out = append(out, &call{Name: c.Name, Args: withCwd(c.Args, req.Cwd).(map[string]any), Namespace: c.Namespace})
		}
		return out, nil
	}
	c, err := resolveCall(st, req)
	if c == nil {
		return nil, err
	}
	return []*call{c}, err
}

// resolveCall turns a step's generic tool call into the program's own.
func resolveCall(st *Step, req *request) (*call, error) {
	switch {
	case st.Call != nil:
		return &call{Name: st.Call.Name, Args: withCwd(st.Call.Args, req.Cwd).(map[string]any), Namespace: st.Call.Namespace}, nil
	case st.WriteFile != nil:
		path := st.WriteFile.Path
		if !filepath.IsAbs(path) && req.Cwd != "" {
			path = filepath.Join(req.Cwd, path)
		}
		for _, t := range writeTools {
			if slices.Contains(req.Tools, t.name) {
				return &call{Name: t.name, Args: t.args(path, st.WriteFile.Content)}, nil
			}
		}
		// No write tool (codex): write through the shell instead.
		return shellCall(writeCommand(path, st.WriteFile.Content), req)
	case st.Shell != "":
		return shellCall(st.Shell, req)
	}
	return nil, nil
}

func shellCall(cmd string, req *request) (*call, error) {
	for _, t := range shellTools {
		if slices.Contains(req.Tools, t.name) {
			return &call{Name: t.name, Args: t.args(cmd)}, nil
		}
	}
	return nil, fmt.Errorf("no known write or shell tool among %v", req.Tools)
}

// writeCommand is a shell command that writes content to path exactly.
func writeCommand(path, content string) string {
	return fmt.Sprintf("printf '%%s' %s > %s", shellquote.Quote(content), shellquote.Quote(path))
}

// withCwd replaces {cwd} in the string values of a call's arguments with
// the working directory found in the request, so one script can give the
// absolute paths some programs' tools require (Claude Code's Read, Edit).
func withCwd(v any, cwd string) any {
	switch x := v.(type) {
	case string:
		if cwd != "" {
			return strings.ReplaceAll(x, "{cwd}", cwd)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = withCwd(e, cwd)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withCwd(e, cwd)
		}
		return out
	}
	return v
}
