package session_test

import (
	"reflect"
	"testing"

	"github.com/csa-dev/csa/internal/session"
)

func TestChildrenAndDescendants(t *testing.T) {
	// r
	// ├── a
	// │   └── a1
	// │       └── a11
	// ├── b
	// │   └── b1
	// └── c
	states := []*session.State{
		{ID: "r"},
		{ID: "a", ParentID: "r"},
		{ID: "b", ParentID: "r"},
		{ID: "a1", ParentID: "a"},
		{ID: "b1", ParentID: "b"},
		{ID: "c", ParentID: "r"},
		{ID: "a11", ParentID: "a1"},
		{ID: "other"},
	}
	kids := session.Children(states)
	wantKids := map[string][]string{
		"r":  {"a", "b", "c"},
		"a":  {"a1"},
		"b":  {"b1"},
		"a1": {"a11"},
	}
	if !reflect.DeepEqual(kids, wantKids) {
		t.Errorf("Children = %v, want %v", kids, wantKids)
	}
	tests := []struct {
		id   string
		want []string
	}{
		{"r", []string{"a11", "a1", "b1", "a", "b", "c"}},
		{"a", []string{"a11", "a1"}},
		{"b", []string{"b1"}},
		{"a11", nil},
		{"other", nil},
		{"unknown", nil},
	}
	for _, tt := range tests {
		if got := session.Descendants(kids, tt.id); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Descendants(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestDescendantsDeepestFirst(t *testing.T) {
	// Whatever the shape, every descendant must come before its parent.
	states := []*session.State{
		{ID: "r"},
		{ID: "x", ParentID: "r"},
		{ID: "y", ParentID: "x"},
		{ID: "z", ParentID: "r"},
		{ID: "w", ParentID: "y"},
		{ID: "v", ParentID: "z"},
	}
	parent := map[string]string{}
	for _, st := range states {
		parent[st.ID] = st.ParentID
	}
	got := session.Descendants(session.Children(states), "r")
	if len(got) != 5 {
		t.Fatalf("Descendants = %v, want 5 ids", got)
	}
	pos := map[string]int{}
	for i, id := range got {
		pos[id] = i
	}
	for _, id := range got {
		if p := parent[id]; p != "r" && pos[id] > pos[p] {
			t.Errorf("%s comes after its parent %s in %v", id, p, got)
		}
	}
}

func TestDescendantsCycle(t *testing.T) {
	kids := map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a", "b"}}
	got := session.Descendants(kids, "a")
	if want := []string{"c", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Descendants on a cycle = %v, want %v", got, want)
	}
}

// KillOrder: each target after its descendants (deepest first), a session
// named twice (a target that is also another's descendant) once.
func TestKillOrder(t *testing.T) {
	s := newStore(t)
	r, a, a1, b := idAt(1), idAt(2), idAt(3), idAt(4)
	create(t, s, r, "")
	create(t, s, a, r)
	create(t, s, a1, a)
	create(t, s, b, "")
	got, err := s.KillOrder([]string{a, r, b})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{a1, a, r, b}; !reflect.DeepEqual(got, want) {
		t.Fatalf("KillOrder = %v, want %v", got, want)
	}
}
