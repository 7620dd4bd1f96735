package frontmatter

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// What simpleKeys reads, it reads as the YAML parser does: the same keys,
// values and nodes, on front matter made of the pieces that matter.
func TestSimpleKeysAreYAML(t *testing.T) {
	keys := []string{"name", "description", "allowed-tools", "x_1", "model", "tools", "name", "description", "-k", "1", "a b", "#c", ""}
	seps := []string{": ", ": ", ": ", ":  ", ":", " : ", ":\t", ": \t"}
	words := []string{"Read", "Grep", " ", "  ", ",", ".", ";", "(", ")", "/", "+", "=", "-", "_", "1", "0x1F", "1e3",
		"true", "False", "null", "Null", "NULL", "yes", "no", "n", "...", "Use it", "[", "]", "[file]", "[Read, Grep]",
		"[ a ,b ]", "[x,]", "[]", "Bash(git status:*)", ":*", "a:b", "*", ":"}
	others := []string{"~", "#", " #", ":", ": ", "'", "\"", "[", "]", "{", "}", "*", "&", "!", "|", ">", "%", "@", "`",
		"é", "\t", "\r", "---", "?", "\u00a0"}
	rng := rand.New(rand.NewPCG(25, 2))
	read, lists := 0, 0
	for i := 0; i < 400000; i++ {
		var fm strings.Builder
		for n := 1 + rng.IntN(4); n > 0; n-- {
			if rng.IntN(8) == 0 {
				fm.WriteString("\n") // a blank line
			}
			if rng.IntN(40) == 0 {
				fm.WriteString(" ") // an indented line
			}
			fm.WriteString(keys[rng.IntN(len(keys))] + seps[rng.IntN(len(seps))])
			for m := rng.IntN(6); m > 0; m-- {
				if rng.IntN(30) == 0 {
					fm.WriteString(others[rng.IntN(len(others))])
				} else {
					fm.WriteString(words[rng.IntN(len(words))])
				}
			}
			fm.WriteString("\n")
		}
		src := fm.String()
		if rng.IntN(4) == 0 {
			src = strings.TrimSuffix(src, "\n")
		}
		if rng.IntN(6) == 0 {
			src = strings.ReplaceAll(src, ":\t", ": ") // mostly keys, then
		}
		got, ok := simpleKeys(src)
		if !ok {
			continue
		}
		read++
		want, err := parseYAML(src)
		if err != nil {
			t.Fatalf("%q: simpleKeys read it, YAML fails: %v", src, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: simpleKeys %d keys, YAML %d", src, len(got), len(want))
		}
		for k, w := range want {
			g := got[k]
			if !sameValue(g, w) {
				t.Fatalf("%q: key %q: simpleKeys %+v %+v, YAML %+v %+v", src, k, g, *g.node, w, *w.node)
			}
			if g.IsList() {
				lists++
			}
		}
	}
	if read < 5000 || lists < 400 {
		t.Errorf("simpleKeys read %d of the texts, %d lists: the test checks too little", read, lists)
	}
}

// sameValue compares values and their nodes, a list's items too.
func sameValue(g, w Value) bool {
	gn, wn := g.node, w.node
	if g.kind != w.kind || g.s != w.s || len(g.items) != len(w.items) || gn.Kind != wn.Kind || gn.Tag != wn.Tag ||
		gn.Value != wn.Value || gn.Style != wn.Style || gn.Line != wn.Line || gn.Column != wn.Column ||
		len(gn.Content) != len(wn.Content) {
		return false
	}
	for i := range g.items {
		if !sameValue(g.items[i], w.items[i]) || g.items[i].node != gn.Content[i] {
			return false
		}
	}
	return true
}
