package subagent

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Definitions are read through symbolic links to files and folders, as
// Claude Code reads them, and a link back up the tree is read once.
func TestLoadFollowsLinks(t *testing.T) {
	home, shared := t.TempDir(), t.TempDir()
	agents := filepath.Join(home, ".claude/agents")
	write(t, filepath.Join(shared, "team/linked-dir.md"), def("linked-dir", "in a linked folder"))
	write(t, filepath.Join(shared, "one.md"), def("linked-file", "a linked file"))
	write(t, filepath.Join(agents, "sub/plain.md"), def("plain", "a plain file"))
	for link, target := range map[string]string{
		filepath.Join(agents, "team"):      filepath.Join(shared, "team"),
		filepath.Join(agents, "file.md"):   filepath.Join(shared, "one.md"),
		filepath.Join(agents, "sub/loop"):  agents,
		filepath.Join(agents, "broken.md"): filepath.Join(shared, "missing.md"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	defs, err := Load(Sources{Home: home})
	var got []string
	for _, d := range defs[1:] {
		got = append(got, d.Name)
	}
	if want := []string{"linked-file", "plain", "linked-dir"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("definitions %v (%v), want %v", got, err, want)
	}
}
