package todo

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

const sample = `# Add a cache

status: approved

Why: the server reads the same rows again and again.
It should not.

- [x] A: write the cache package
  tool: codex
- [ ] B: use it in the server (after: A)
  tier: main
  worktree: false
  isolate: fs,net
  prompt: Use internal/cache in the server's handlers.
  prompt: Keep the handlers small.
  session: 01JABCDEFGHJKMNPQRSTVWXYZ0
- [ ] C: document it (after: A, B)
`

func TestParse(t *testing.T) {
	p, err := Parse("cache.md", sample)
	if err != nil {
		t.Fatal(err)
	}
	off := false
	want := &Plan{
		Title: "Add a cache", Status: Approved, File: "cache.md",
		Description: "Why: the server reads the same rows again and again.\nIt should not.",
		Tasks: []*Task{
			{ID: "A", Title: "write the cache package", Done: true, Tool: "codex", Line: 8},
			{ID: "B", Title: "use it in the server", After: []string{"A"}, Tier: "main", Worktree: &off, Isolate: "fs,net",
				Prompt:  "Use internal/cache in the server's handlers.\nKeep the handlers small.",
				Session: "01JABCDEFGHJKMNPQRSTVWXYZ0", Line: 10},
			{ID: "C", Title: "document it", After: []string{"A", "B"}, Line: 17},
		},
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("Parse:\n got %+v\nwant %+v", p, want)
		for i := range p.Tasks {
			t.Logf("task %d: %+v", i, *p.Tasks[i])
		}
	}
	if p.Tasks[2].PromptText() != "document it" {
		t.Errorf("a task without prompt: is asked its title, got %q", p.Tasks[2].PromptText())
	}
}

// The canonical markdown reads back to the same plan and formats to the
// same text; the sample is written canonically, so it is its own format.
func TestFormatRoundTrip(t *testing.T) {
	p, err := Parse("cache.md", sample)
	if err != nil {
		t.Fatal(err)
	}
	out := Format(p)
	if out != sample {
		t.Errorf("Format differs from the canonical input:\n%s\n---\n%s", out, sample)
	}
	again, err := Parse("cache.md", out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, p) {
		t.Errorf("Parse(Format(p)) != p")
	}
	// A loosely written plan (no status, extra blank lines, [X]) becomes
	// canonical, and stays so.
	loose := "\n#   Loose  \n\n- [X] a.1: one\n\n\n- [ ] b_2: two   (after:a.1)\n\tprompt:   say hi\n"
	lp, err := Parse("loose.md", loose)
	if err != nil {
		t.Fatal(err)
	}
	canon := "# Loose\n\nstatus: draft\n\n- [x] a.1: one\n- [ ] b_2: two (after: a.1)\n  prompt: say hi\n"
	if got := Format(lp); got != canon {
		t.Errorf("Format(loose) = %q, want %q", got, canon)
	}
	if lp2, _ := Parse("loose.md", canon); Format(lp2) != canon {
		t.Errorf("canonical form does not round-trip")
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no title", "- [ ] A: x\n", "p.md:1: a plan begins with its title"},
		{"bad status", "# T\nstatus: finished\n", `p.md:2: unknown plan status "finished"`},
		{"bad box", "# T\n- [y] A: x\n", "p.md:2: a task is"},
		{"bad id", "# T\n- [ ] A/B: x\n", "p.md:2: task id \"A/B\""},
		{"no title task", "# T\n- [ ] A: (after: B)\n- [ ] B: b\n", "p.md:2: task A has no title"},
		{"duplicate", "# T\n- [ ] A: x\n- [ ] B: y\n- [ ] A: z\n", "p.md:4: task A is already defined at line 2"},
		{"stray text", "# T\n- [ ] A: x\nsome words\n", "p.md:3: after the first task only tasks"},
		{"bad worktree", "# T\n- [ ] A: x\n  worktree: yes\n", `p.md:3: task A: worktree: "yes": want true or false`},
		{"second worktree", "# T\n- [ ] A: x\n  worktree: true\n  worktree: true\n", `p.md:4: task A: a second worktree: line`},
		{"bad isolate", "# T\n- [ ] A: x\n- [ ] B: y\n  tool: codex\n  isolate: disk\n", `p.md:5: task B: isolate: "disk": each word is one of fs, net (or none alone)`},
		{"isolate none and fs", "# T\n- [ ] A: x\n  isolate: none,fs\n", `p.md:3: task A: isolate: "none,fs": none stands alone`},
		{"second isolate", "# T\n- [ ] A: x\n  isolate: fs\n  isolate: none\n", "p.md:4: task A: a second isolate: line"},
		{"unknown attr", "# T\n- [ ] A: x\n  model: big\n", `p.md:3: task A: unknown line "model:"`},
		{"second tool", "# T\n- [ ] A: x\n  tool: codex\n  tool: codex\n", "p.md:4: task A: a second tool: line"},
		{"tool and tier", "# T\n\n- [ ] A: x\n  tool: codex\n  tier: main\n", "p.md:3: task A: give tool: or tier:, not both"},
		{"empty after", "# T\n- [ ] A: x (after: )\n", "p.md:2: task A: an empty name in (after: ...)"},
		{"attr in capitals", "# T\n- [ ] A: x\n  Tool: codex\n", "p.md:3: after the first task only tasks"},
		{"attr without colon", "# T\n- [ ] A: x\n  tool codex\n", "p.md:3: after the first task only tasks"},
		{"attr not indented", "# T\n- [ ] A: x\ntool: codex\n", "p.md:3: after the first task only tasks"},
		{"empty attr", "# T\n- [ ] A: x\n  prompt: \t \n", "p.md:3: task A: prompt: is empty"},
	} {
		_, err := Parse("p.md", tc.text)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error beginning %q", tc.name, err, tc.want)
		}
	}
}

func TestStatusTransitions(t *testing.T) {
	allowed := map[[2]Status]bool{
		{Draft, Approved}: true, {Approved, Draft}: true, {Approved, Implementing}: true,
		{Implementing, Approved}: true, {Implementing, Done}: true, {Done, Implementing}: true,
	}
	for _, a := range Statuses {
		for _, b := range Statuses {
			if got := a.CanBecome(b); got != allowed[[2]Status{a, b}] {
				t.Errorf("%s -> %s: CanBecome = %v", a, b, got)
			}
		}
	}
}

func TestParseAttrLines(t *testing.T) {
	p, err := Parse("p.md", "# T\n- [ ] A: x\n\ttool:\tcodex \n  prompt:  two  words\n")
	if err != nil || p.Tasks[0].Tool != "codex" || p.Tasks[0].Prompt != "two  words" {
		t.Fatalf("%+v %v", p.Tasks, err)
	}
}
