package tools

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// responseJSON is a result's Response as a hook receives it.
func responseJSON(t *testing.T, res tool.Result) string {
	t.Helper()
	b, err := json.Marshal(res.Response)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The file and shell tools' results in Claude Code's shapes, as Claude
// Code 2.1.197 gave them to a PostToolUse hook for the same calls.
func TestClaudeCodeResponses(t *testing.T) {
	env := newEnv(t)
	file := filepath.Join(env.Cwd, "w.txt")
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }

	res := call(t, NewWrite(), env, map[string]string{"file_path": file, "content": "alpha\nbeta\n"})
	if got, want := responseJSON(t, res), `{"type":"create","filePath":`+q(file)+`,"content":"alpha\nbeta\n","structuredPatch":[],"originalFile":null,"userModified":false}`; got != want {
		t.Errorf("Write (create):\n got %s\nwant %s", got, want)
	}
	res = call(t, NewRead(), env, map[string]string{"file_path": file})
	if got, want := responseJSON(t, res), `{"type":"text","file":{"filePath":`+q(file)+`,"content":"alpha\nbeta\n","numLines":3,"startLine":1,"totalLines":3}}`; got != want {
		t.Errorf("Read:\n got %s\nwant %s", got, want)
	}
	res = call(t, NewEdit(), env, map[string]string{"file_path": file, "old_string": "beta", "new_string": "gamma"})
	if got, want := responseJSON(t, res), `{"filePath":`+q(file)+`,"oldString":"beta","newString":"gamma","originalFile":"alpha\nbeta\n","structuredPatch":[{"oldStart":1,"oldLines":2,"newStart":1,"newLines":2,"lines":[" alpha","-beta","+gamma"]}],"userModified":false,"replaceAll":false}`; got != want {
		t.Errorf("Edit:\n got %s\nwant %s", got, want)
	}
	res = call(t, NewWrite(), env, map[string]string{"file_path": file, "content": "alpha\ndelta\n"})
	if got, want := responseJSON(t, res), `{"type":"update","filePath":`+q(file)+`,"content":"alpha\ndelta\n","structuredPatch":[{"oldStart":1,"oldLines":2,"newStart":1,"newLines":2,"lines":[" alpha","-gamma","+delta"]}],"originalFile":"alpha\ngamma\n","userModified":false}`; got != want {
		t.Errorf("Write (update):\n got %s\nwant %s", got, want)
	}
	res = call(t, NewBash(), env, map[string]string{"command": "echo out; echo err >&2"})
	if got, want := responseJSON(t, res), `{"stdout":"out\nerr","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}`; got != want {
		t.Errorf("Bash:\n got %s\nwant %s", got, want)
	}
	res = call(t, NewGlob(), env, map[string]string{"pattern": "*.txt"})
	if g, ok := res.Response.(globResponse); !ok || len(g.Filenames) != 1 || g.Filenames[0] != "w.txt" || g.NumFiles != 1 ||
		g.TotalMatches != 1 || g.Truncated || !g.CountIsComplete {
		t.Errorf("Glob: %+v", res.Response)
	}
	res = call(t, NewGrep(), env, map[string]string{"pattern": "alpha"})
	if got, want := responseJSON(t, res), `{"mode":"files_with_matches","numFiles":1,"filenames":["w.txt"]}`; got != want {
		t.Errorf("Grep:\n got %s\nwant %s", got, want)
	}
	res = call(t, NewGrep(), env, map[string]string{"pattern": "a", "output_mode": "count"})
	if g, ok := res.Response.(grepResponse); !ok || g.NumFiles != 1 || g.NumMatches == nil || *g.NumMatches != 2 {
		t.Errorf("Grep count: %s (%s)", responseJSON(t, res), res.Output)
	}
	res = call(t, NewGrep(), env, map[string]string{"pattern": "a", "output_mode": "content"})
	if g, ok := res.Response.(grepResponse); !ok || g.NumLines == nil || *g.NumLines != 2 || g.NumFiles != 0 {
		t.Errorf("Grep content: %s (%s)", responseJSON(t, res), res.Output)
	}
	res = call(t, NewRead(), env, map[string]any{"file_path": file, "offset": 2, "limit": 1})
	if got, want := responseJSON(t, res), `{"type":"text","file":{"filePath":`+q(file)+`,"content":"delta","numLines":1,"startLine":2,"totalLines":3}}`; got != want {
		t.Errorf("Read (a part):\n got %s\nwant %s", got, want)
	}
}
