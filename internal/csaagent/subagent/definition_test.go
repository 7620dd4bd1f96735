package subagent

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseFrontMatter(t *testing.T) {
	cases := []struct {
		name, src string
		want      Definition
	}{
		{"comma tools", "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep,Glob\nmodel: sonnet\ncolor: red\n---\nYou review.\n\nCarefully.\n",
			Definition{Name: "reviewer", Description: "Reviews code.", Tools: []string{"Read", "Grep", "Glob"}, Model: "sonnet", Prompt: "You review.\n\nCarefully."}},
		{"list tools, quoted, inherit", "---\nname: \"x\"\ndescription: 'it''s: fine'\ntools:\n  - Read\n  - \"Bash\"\nmodel: inherit\n---\nbody",
			Definition{Name: "x", Description: "it's: fine", Tools: []string{"Read", "Bash"}, Model: "inherit", Prompt: "body"}},
		{"inline list, block description, no tools", "---\r\nname: y\r\ndescription: |\r\n  line one\r\n  line two\r\n---\r\n",
			Definition{Name: "y", Description: "line one\nline two\n"}},
		{"yaml list at column 0, folded", "---\nname: z\ndescription: >\n  a\n  b\ntools: [Read, 'Write']\n---\nP",
			Definition{Name: "z", Description: "a b\n", Tools: []string{"Read", "Write"}, Prompt: "P"}},
		{"\\n in a description is a new line", "---\nname: e\ndescription: One: x.\\n\\n<example>two</example>\ntools: *\n---\n",
			Definition{Name: "e", Description: "One: x.\n\n<example>two</example>"}},
		{"star is all", "---\nname: s\ndescription: d # comment\ntools: \"*\"\n---\n",
			Definition{Name: "s", Description: "d"}},
		{"empty tools is none", "---\nname: n\ndescription: d\ntools: []\n---\n",
			Definition{Name: "n", Description: "d", Tools: []string{}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := Parse("f.md", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			c.want.Path = "f.md"
			if !reflect.DeepEqual(d, c.want) {
				t.Fatalf("got %#v\nwant %#v", d, c.want)
			}
		})
	}
}

func TestParseErrorsAreClear(t *testing.T) {
	// As Claude Code reads them: without front matter, or with front
	// matter that is not YAML or no mapping, an agent has no name; a name
	// or description that is no string is none.
	cases := [][2]string{
		{"no front matter", "name: x\n"},
		{"no front matter", "---\nname: x\ndescription: d\n"},
		{"no name", "---\ndescription: d\n---\n"},
		{"no description", "---\nname: x\n---\n"},
		{"no name", "---\nname x\n---\n"},
		{"must be one word", "---\nname: two words\ndescription: d\n---\n"},
		{"no name", "---\nname: [a, b]\ndescription: d\n---\n"},
		{"no name", "---\nname: 12\ndescription: d\n---\n"},
		{"no description", "---\nname: x\ndescription: 12\n---\n"},
		{"front matter is not YAML", "---\nname: \"x\ndescription: d\n---\n"},
		{"front matter is not YAML", "---\nname: x\ndescription: Use it.\nContext: lines\n<example>\n---\n"},
	}
	for _, c := range cases {
		want, src := c[0], c[1]
		_, err := Parse("/a/bad.md", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "/a/bad.md") {
			t.Errorf("%q: error %v, want one naming the file and saying %q", src, err, want)
		}
	}
}

func write(t *testing.T, path, src string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func def(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nprompt of " + desc + "\n"
}

func TestLoadOverrideOrder(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".claude/agents/a.md"), def("alpha", "home alpha"))
	write(t, filepath.Join(home, ".claude/agents/b.md"), def("beta", "home beta"))
	write(t, filepath.Join(home, ".claude/agents/notes.txt"), "ignored")
	write(t, filepath.Join(proj, ".claude/agents/a.md"), def("alpha", "project alpha"))
	write(t, filepath.Join(proj, ".claude/agents/gp.md"), def("general-purpose", "project general"))
	write(t, filepath.Join(proj, ".csa/agents/z.md"), def("beta", "csa beta"))
	write(t, filepath.Join(proj, ".csa/agents/bad.md"), "---\nname: bad\n---\nno description")
	defs, err := Load(Sources{Home: home, ProjectRoot: proj})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(proj, ".csa/agents/bad.md")) {
		t.Fatalf("error %v, want the bad file named", err)
	}
	var got []string
	for _, d := range defs {
		got = append(got, d.Name+"="+d.Description)
	}
	want := []string{"general-purpose=project general", "alpha=project alpha", "beta=csa beta"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("definitions %v, want %v", got, want)
	}
	// The prompt is read when the agent is used.
	if p, err := defs[1].Instructions(); defs[1].Path != filepath.Join(proj, ".claude/agents/a.md") || p != "prompt of project alpha" || err != nil {
		t.Fatalf("alpha %+v: %q %v", defs[1], p, err)
	}
	write(t, filepath.Join(proj, ".claude/agents/a.md"), def("alpha", "project alpha")+" edited")
	if p, err := defs[1].Instructions(); p != "prompt of project alpha\n edited" || err != nil {
		t.Fatalf("alpha's prompt after an edit: %q %v", p, err)
	}
	// Nothing anywhere: the built-in one alone.
	defs, err = Load(Sources{ProjectRoot: t.TempDir()})
	if err != nil || len(defs) != 1 || defs[0].Name != GeneralPurpose || defs[0].Tools != nil {
		t.Fatalf("defs %+v, err %v", defs, err)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"# Plan: Add the --tree flag!\n\n1. x": "plan-add-the-tree-flag",
		"\n\n   ":                              "plan",
		"- Ünïcode only ✓":                     "n-code-only",
		strings.Repeat("word ", 30):            "word-word-word-word-word-word-word-word-word",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// Definitions in subfolders at any depth are read, as Claude Code reads
// them; a file naming no agent (a README) is skipped without a word; the
// managed folder wins over the project's, which wins over the user's.
func TestLoadSubfoldersAndPrecedence(t *testing.T) {
	managed, home, proj := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(proj, ".claude/agents/team/backend/api.md"), def("api-dev", "project api"))
	write(t, filepath.Join(proj, ".claude/agents/team/README.md"), "# The team's agents\n\nNotes.")
	write(t, filepath.Join(proj, ".claude/agents/team/notes.md"), "---\ncolor: red\n---\nno name: not an agent")
	write(t, filepath.Join(home, ".claude/agents/mine/deep/er/x.md"), def("shared", "user shared"))
	write(t, filepath.Join(proj, ".claude/agents/ops/shared.md"), def("shared", "project shared"))
	write(t, filepath.Join(home, ".claude/agents/policy.md"), def("policy", "user policy"))
	write(t, filepath.Join(proj, ".claude/agents/policy.md"), def("policy", "project policy"))
	write(t, filepath.Join(managed, "org/policy.md"), def("policy", "managed policy"))
	defs, err := Load(Sources{Managed: managed, Home: home, ProjectRoot: proj})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range defs {
		got[d.Name] = d.Description
	}
	want := map[string]string{GeneralPurpose: Builtin().Description, "api-dev": "project api",
		"shared": "project shared", "policy": "managed policy"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("definitions %v, want %v", got, want)
	}
}

// The .claude/agents of the folders from the project root down to the
// working directory are read too, the nearest winning, as in Claude Code.
func TestLoadFoldersDownToCwd(t *testing.T) {
	proj := t.TempDir()
	cwd := filepath.Join(proj, "services", "api")
	write(t, filepath.Join(proj, ".claude/agents/a.md"), def("helper", "root helper"))
	write(t, filepath.Join(proj, "services/.claude/agents/b.md"), def("helper", "services helper"))
	write(t, filepath.Join(proj, "services/.claude/agents/c.md"), def("lint", "services lint"))
	write(t, filepath.Join(cwd, ".claude/agents/d.md"), def("helper", "api helper"))
	write(t, filepath.Join(proj, "other/.claude/agents/e.md"), def("other", "not on the way"))
	defs, err := Load(Sources{ProjectRoot: proj, Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range defs {
		got[d.Name] = d.Description
	}
	want := map[string]string{GeneralPurpose: Builtin().Description, "helper": "api helper", "lint": "services lint"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("definitions %v, want %v", got, want)
	}
	if d := (Sources{ProjectRoot: proj, Cwd: t.TempDir()}).Dirs(); len(d) != 2 {
		t.Errorf("a working directory outside the project adds folders: %q", d)
	}
}
