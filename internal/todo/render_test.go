package todo

import "testing"

// The same three-level graph in the three formats, checked by hand: nodes
// by level (A, E; B, C; D), edges to each node in that order.
func TestRender(t *testing.T) {
	p, err := Parse("p.md", diamond)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		FormatTerminal: `[x] A: lay the ground
[ ] E: unrelated
  [ ] B: left side <- A
  [ ] C: right side <- A
    [ ] D: join "both" <- B, C
`,
		FormatMermaid: `flowchart TD
  t1["[x] A: lay the ground"]
  t5["[ ] E: unrelated"]
  t2["[ ] B: left side"]
  t4["[ ] C: right side"]
  t3["[ ] D: join #quot;both#quot;"]
  t1 --> t2
  t1 --> t4
  t2 --> t3
  t4 --> t3
`,
		FormatDot: `digraph "Diamond \"quoted\"" {
  rankdir=TB;
  node [shape=box];
  "A" [label="[x] A: lay the ground", style=filled, fillcolor=palegreen];
  "E" [label="[ ] E: unrelated"];
  "B" [label="[ ] B: left side"];
  "C" [label="[ ] C: right side"];
  "D" [label="[ ] D: join \"both\""];
  "A" -> "B";
  "A" -> "C";
  "B" -> "D";
  "C" -> "D";
}
`,
	}
	for _, f := range []string{FormatTerminal, FormatMermaid, FormatDot} {
		got, err := Render(p, f)
		if err != nil {
			t.Fatal(err)
		}
		if got != want[f] {
			t.Errorf("%s:\n%s\nwant:\n%s", f, got, want[f])
		}
		// Stable: the same again.
		if again, _ := Render(p, f); again != got {
			t.Errorf("%s: a second rendering differs", f)
		}
	}
	if _, err := Render(p, "svg"); err == nil {
		t.Error("an unknown format is refused")
	}
}
