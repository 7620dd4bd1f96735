package batch

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodTOML = `# a diamond
[[task]]
id = "a"
prompt = "lay the ground"

[[task]]
id = "b"
name = "left"
prompt = "left side"
depends_on = ["a"]
tool = "codex"
model = "gpt-5"
timeout = "10m"
cwd = "sub"
worktree = false
isolate = "fs,net"

[[task]]
id = "c"
prompt = """right
side"""
tier = "main"
depends_on = ["a"]
`

func TestParseTOML(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	tasks, err := Parse("b.toml", dir, []byte(goodTOML))
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 3 {
		t.Fatalf("%d tasks, want 3", len(tasks))
	}
	b := tasks[1]
	if b.ID != "b" || b.Name != "left" || b.Tool != "codex" || b.Model != "gpt-5" || b.Timeout != "10m" ||
		b.Cwd != filepath.Join(dir, "sub") || len(b.DependsOn) != 1 || b.Line != 6 {
		t.Errorf("task b: %+v", b)
	}
	if c := tasks[2]; c.Prompt != "right\nside" || c.Tier != "main" || c.Line != 18 || c.Worktree != nil || c.Isolate != "" {
		t.Errorf("task c: %+v", c)
	}
	g := b.graphTask()
	if g.Timeout.String() != "10m0s" || g.Dir != b.Cwd || g.After[0] != "a" || g.Prompt != "left side" ||
		g.Worktree == nil || *g.Worktree || g.Isolate != "fs,net" {
		t.Errorf("graph task %+v", g)
	}
}

const goodJSON = `{
  "tasks": [
    {"id": "a", "prompt": "first"},
    {
      "id": "b", "prompt": "second",
      "depends_on": ["a"], "tool": "claude-code", "isolate": "none"
    }
  ]
}`

func TestParseJSON(t *testing.T) {
	want := map[string]string{"object": "none", "array": ""}
	for name, text := range map[string]string{
		"object": goodJSON,
		"array":  "[\n {\"id\": \"a\", \"prompt\": \"first\"},\n\n {\"id\": \"b\", \"prompt\": \"second\", \"depends_on\": [\"a\"], \"tool\": \"claude-code\"}\n]",
	} {
		tasks, err := Parse("b.json", "/", []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(tasks) != 2 || tasks[1].DependsOn[0] != "a" || tasks[1].Tool != "claude-code" || tasks[1].Isolate != want[name] {
			t.Errorf("%s: %+v", name, tasks)
		}
		lines := map[string][2]int{"object": {3, 4}, "array": {2, 4}}[name]
		if tasks[0].Line != lines[0] || tasks[1].Line != lines[1] {
			t.Errorf("%s: lines %d, %d; want %v", name, tasks[0].Line, tasks[1].Line, lines)
		}
	}
	// No extension: JSON by its first character.
	if tasks, err := Parse("tasks", "/", []byte(goodJSON)); err != nil || len(tasks) != 2 {
		t.Errorf("sniffed JSON: %v %v", tasks, err)
	}
}

func TestParseRefusals(t *testing.T) {
	for _, tc := range []struct{ file, text, want string }{
		// TOML
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\ncolour = \"red\"\n",
			`b.toml:4: unknown key "colour" in a task: want id, name, prompt, tool, tier, model, depends_on, cwd, timeout, worktree, isolate`},
		{"b.toml", "[[tasks]]\nid = \"a\"\n", `b.toml:1: unknown key "tasks": tasks are [[task]] tables`},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\n[[task]]\nid = \"a\"\nprompt = \"q\"\n", "b.toml:4: task a is already defined at line 1"},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\ndepends_on = [\"z\"]\n", "b.toml:1: task a depends on unknown task z"},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\ndepends_on = [\"b\"]\n[[task]]\nid = \"b\"\nprompt = \"p\"\ndepends_on = [\"a\"]\n",
			"b.toml:1: cycle: a -> b -> a (a at line 1, b at line 5)"},
		{"b.toml", "[[task]]\nprompt = \"p\"\n", "b.toml:1: task 1 has no id"},
		{"b.toml", "[[task]]\nid = \"a b\"\nprompt = \"p\"\n", `b.toml:1: task id "a b": use letters, digits, '_', '.' and '-', beginning with a letter or digit`},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"  \"\n", "b.toml:1: task a has no prompt"},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\ntool = \"codex\"\ntier = \"main\"\n", "b.toml:1: task a: give tool or tier, not both"},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\ntool = \"gpt\"\n", `b.toml:1: task a: unknown tool "gpt" (known tools: claude-code, codex, gemini-cli, opencode, csa-agent, auto)`},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\ntimeout = \"10\"\n", `b.toml:1: task a: timeout "10": want a positive duration such as 90s or 10m`},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\n\n[[task]]\nid = \"b\"\nprompt = \"p\"\nisolate = \"files\"\n",
			`b.toml:5: task b: isolate "files": each word is one of fs, net (or none alone)`},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\nisolate = \"fs,none\"\n", `b.toml:1: task a: isolate "fs,none": none stands alone`},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\ncwd = \"nowhere\"\n", "b.toml:1: task a: cwd /base/nowhere is not a directory"},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\ndepends_on = [\"\"]\n", "b.toml:1: task a: an empty id in depends_on"},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\ndepends_on = \"b\"\n", "b.toml:4: cannot decode TOML string into struct field batch.Task.DependsOn of type []string"},
		{"b.toml", "[[task]]\nid = \"a\nprompt = \"p\"\n", "b.toml:2: basic strings cannot have new lines"},
		{"b.toml", "# nothing\n", `b.toml: no tasks (TOML: [[task]] tables; JSON: {"tasks": [...]} or [...])`},
		// Unknown keys found by one walk of the document, wherever they are.
		{"b.toml", "task = [{id = \"a\", prompt = \"p\"},\n  {id = \"b\", prompt = \"p\", colour = 1}]\n", `b.toml:2: unknown key "colour" in a task: want id, name, prompt, tool, tier, model, depends_on, cwd, timeout, worktree, isolate`},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\n[task.extra]\nx = 1\n", `b.toml:4: unknown key "extra" in a task: want id, name, prompt, tool, tier, model, depends_on, cwd, timeout, worktree, isolate`},
		{"b.toml", "version = 2\n[[task]]\nid = \"a\"\nprompt = \"p\"\n", `b.toml:1: unknown key "version": tasks are [[task]] tables`},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"p\"\n[other]\nx = 1\n", `b.toml:4: unknown key "other": tasks are [[task]] tables`},
		// Keys match whatever their case, as the decoder matches them, and
		// the tasks keep their lines.
		{"b.toml", "[[Task]]\nID = \"a\"\nPrompt = \"p\"\n\n[[Task]]\nid = \"b\"\nprompt = \"p\"\nDepends_On = [\"z\"]\n", "b.toml:5: task b depends on unknown task z"},
		// JSON
		{"b.json", "{\"tasks\": [\n{\"id\": \"a\", \"prompt\": \"p\",\n \"colour\": 1}]}", `b.json:2: unknown key "colour" in a task: want id, name, prompt, tool, tier, model, depends_on, cwd, timeout, worktree, isolate`},
		{"b.json", "[{\"id\": \"a\", \"prompt\": \"p\"},\n {\"id\": \"b\", \"prompt\": \"p\", \"isolate\": \"fs,\"}]", `b.json:2: task b: isolate "fs,": each word is one of fs, net (or none alone)`},
		{"b.json", "{\n\"task\": []}", `b.json:2: unknown key "task": want "tasks"`},
		{"b.json", "[{\"id\": \"a\", \"prompt\": \"p\"},\n {\"id\": \"b\", \"prompt\": \"p\", \"depends_on\": [\"b\"]}]", "b.json:2: cycle: b -> b (b at line 2)"},
		{"b.json", "[{\"id\": \"a\",\n \"prompt\": 3}]", "b.json:2: task 1: prompt: want string, not number"},
		{"b.json", "[{\"id\": \"a\", \"prompt\": \"p\"},\n 7]", "b.json:2: task 2 is not an object"},
		{"b.json", "[{\"id\": \"a\",\n \"prompt\": \"p\",}]", "b.json:2: invalid JSON: invalid character '}' looking for beginning of object key string"},
		{"b.json", "[{\"id\": \"a\", \"prompt\": \"p\"}]\n[]", "b.json:2: text after the tasks"},
		{"b.json", "[{\"id\": \"a\", \"prompt\": \"p\"},\n {\"id\": \"b\", \"prompt\": ", "b.json: invalid JSON: unexpected EOF"},
		// A byte that is not UTF-8 is refused at its line: JSON would read
		// it as U+FFFD, TOML blamed line 1 for it.
		{"b.json", "[{\"id\": \"a\",\n \"prompt\": \"caf\xe9\"}]", "b.json:2: not text: byte 16 of the line (0xe9) is not UTF-8 (a batch file is UTF-8 TOML or JSON)"},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"caf\xe9\"\n", "b.toml:3: not text: byte 14 of the line (0xe9) is not UTF-8 (a batch file is UTF-8 TOML or JSON)"},
		{"b.toml", "[[task]]\nid = \"a\"\nprompt = \"a\x00\"\n", "b.toml:3: not text: byte 12 of the line is a NUL (a batch file is UTF-8 TOML or JSON)"},
		{"b.json", "[]", `b.json: no tasks (TOML: [[task]] tables; JSON: {"tasks": [...]} or [...])`},
	} {
		_, err := Parse(tc.file, "/base", []byte(tc.text))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.text, err, tc.want)
		}
	}
}

func TestReadFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.toml")
	_, err := ReadFile(path)
	if want := path + ": cannot read it: no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// The lines of a large file's tasks are right to its end (they are found
// by a lookup, no longer by counting from the start for each task).
func TestLinesOfManyTasks(t *testing.T) {
	for _, format := range []string{"toml", "json"} {
		data := bigBatch(format, 3000, nil)
		tasks, err := Parse("big."+format, "/", data)
		if err != nil {
			t.Fatal(err)
		}
		for i, task := range tasks {
			// bigBatch writes 7 lines a task (6 for the first); JSON one.
			want := map[string]int{"toml": max(1, 7*i), "json": 2 + i}[format]
			if task.Line != want {
				t.Fatalf("%s: task %d at line %d, want %d", format, i, task.Line, want)
			}
		}
		bad := append(data[:len(data):len(data)], "\n[[task]]\nid = \"last\"\nprompt = \"p\"\ncolour = \"red\"\n"...)
		if format == "json" {
			bad = append(bytes.TrimSuffix(data, []byte("\n]}\n")), ",\n{\"id\": \"last\", \"prompt\": \"p\",\n \"colour\": 1}\n]}\n"...)
		}
		_, err = Parse("big."+format, "/", bad)
		want := map[string]string{"toml": "big.toml:%d: unknown key \"colour\"", "json": "big.json:%d: unknown key \"colour\""}[format]
		line := map[string]int{"toml": bytes.Count(data, []byte("\n")) + 5, "json": 3002}[format]
		if want = fmt.Sprintf(want, line); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want %s...", format, err, want)
		}
	}
}
