package taskgraph

import (
	"fmt"
	"testing"
)

func n(id string, line int, after ...string) Node { return Node{ID: id, After: after, Line: line} }

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes []Node
		want  string
		line  int
	}{
		{"fine", []Node{n("A", 1), n("B", 2, "A")}, "", 0},
		{"duplicate", []Node{n("A", 3), n("B", 5), n("A", 7)}, "task A is already defined at line 3", 7},
		{"duplicate, no lines", []Node{n("A", 0), n("A", 0)}, "task A is already defined", 0},
		{"unknown", []Node{n("A", 1), n("B", 4, "A", "Z")}, "task B depends on unknown task Z", 4},
		{"three", []Node{n("X", 3), n("A", 4, "C"), n("B", 5, "A"), n("C", 6, "B")},
			"cycle: A -> C -> B -> A (A at line 4, C at line 6, B at line 5)", 4},
		// Found from D, named from the member written first.
		{"found later", []Node{n("D", 2, "B"), n("B", 3, "C"), n("C", 4, "B")}, "cycle: B -> C -> B (B at line 3, C at line 4)", 3},
		{"self", []Node{n("A", 2, "A")}, "cycle: A -> A (A at line 2)", 2},
		{"no lines", []Node{n("a", 0, "b"), n("b", 0, "a")}, "cycle: a -> b -> a", 0},
	} {
		err := Check(tc.nodes)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
		if ge, ok := err.(*GraphError); ok && ge.Line != tc.line {
			t.Errorf("%s: line %d, want %d", tc.name, ge.Line, tc.line)
		}
	}
}

// diamond: A -> (B, C) -> D, and E alone; D is written before C, so the
// levels are not just the written order.
var diamond = []Node{n("A", 1), n("B", 2, "A"), n("D", 3, "B", "C"), n("C", 4, "A"), n("E", 5)}

func ids(nodes []Node, idx []int) []string {
	var out []string
	for _, i := range idx {
		out = append(out, nodes[i].ID)
	}
	return out
}

func TestLevelsAndDependents(t *testing.T) {
	var got [][]string
	for _, l := range Levels(diamond) {
		got = append(got, ids(diamond, l))
	}
	if fmt.Sprint(got) != "[[A E] [B C] [D]]" {
		t.Errorf("Levels = %v, want [[A E] [B C] [D]]", got)
	}
	if got := ids(diamond, Dependents(diamond, "B")); fmt.Sprint(got) != "[D]" {
		t.Errorf("Dependents(B) = %v, want [D]", got)
	}
	if got := ids(diamond, Dependents(diamond, "A")); fmt.Sprint(got) != "[B D C]" { // written order
		t.Errorf("Dependents(A) = %v, want [B D C]", got)
	}
	if got := Dependents(diamond, "E"); len(got) != 0 {
		t.Errorf("Dependents(E) = %v, want none", got)
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{"a": true, "build-2.x_y": true, "": false, "-a": false, "a b": false, "a/b": false} {
		if ValidID(id) != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, !want, want)
		}
	}
}
