package todo

import (
	"testing"
)

func TestUnknownDependency(t *testing.T) {
	_, err := Parse("p.md", "# T\n\n- [ ] A: a\n- [ ] B: b (after: A, Z)\n")
	want := "p.md:4: task B depends on unknown task Z"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestCycles(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"three", "# T\n\n- [ ] X: free\n- [ ] A: a (after: C)\n- [ ] B: b (after: A)\n- [ ] C: c (after: B)\n",
			"p.md:4: cycle: A -> C -> B -> A (A at line 4, C at line 6, B at line 5)"},
		// Found from D, named from the member written first.
		{"found later", "# T\n- [ ] D: d (after: B)\n- [ ] B: b (after: C)\n- [ ] C: c (after: B)\n",
			"p.md:3: cycle: B -> C -> B (B at line 3, C at line 4)"},
		{"self", "# T\n- [ ] A: a (after: A)\n", "p.md:2: cycle: A -> A (A at line 2)"},
	} {
		_, err := Parse("p.md", tc.text)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestLevels(t *testing.T) {
	p, err := Parse("p.md", diamond)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, l := range Levels(p) {
		var ids []string
		for _, t := range l {
			ids = append(ids, t.ID)
		}
		got = append(got, ids)
	}
	if want := "[[A E] [B C] [D]]"; fmtIDs(got) != want {
		t.Errorf("Levels = %v, want %s", got, want)
	}
}

// diamond: A -> (B, C) -> D, and E alone. D is written before C, so the
// order of levels is not just the order of writing.
const diamond = `# Diamond "quoted"

status: approved

- [x] A: lay the ground
- [ ] B: left side (after: A)
- [ ] D: join "both" (after: B, C)
- [ ] C: right side (after: A)
- [ ] E: unrelated
`

func fmtIDs(v [][]string) string {
	s := "["
	for i, l := range v {
		if i > 0 {
			s += " "
		}
		s += "["
		for j, id := range l {
			if j > 0 {
				s += " "
			}
			s += id
		}
		s += "]"
	}
	return s + "]"
}
