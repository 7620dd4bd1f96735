package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/remoterun"
)

// A remote run's scratch tree shares project-scoped MCP servers in its
// caller's project: that directory when this machine has it, else a
// lasting directory of the worker that stands for it.
func TestMCPScope(t *testing.T) {
	state := t.TempDir()
	l := &Local{Getenv: func(k string) string {
		if k == "CSA_STATE_DIR" {
			return state
		}
		return ""
	}}
	here := t.TempDir()
	tree := &remoterun.TreeRef{Commit: "c"}
	if s, err := l.mcpScope(remoterun.Request{ProjectRoot: here, Tree: tree}); err != nil || s != here {
		t.Fatalf("the caller's project, here: %q %v, want %s", s, err, here)
	}
	elsewhere := "/home/someone/on another machine"
	s, err := l.mcpScope(remoterun.Request{ProjectRoot: elsewhere, Tree: tree})
	if err != nil || !strings.HasPrefix(s, filepath.Join(state, "cluster-projects")+"/") {
		t.Fatalf("a caller's project not here: %q %v", s, err)
	}
	if fi, err := os.Stat(s); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("its stand-in %s: %v %v", s, fi, err)
	}
	if again, _ := l.mcpScope(remoterun.Request{ProjectRoot: elsewhere + "/", Tree: tree}); again != s {
		t.Fatalf("the same project's stand-in: %q, then %q", s, again)
	}
	if other, _ := l.mcpScope(remoterun.Request{ProjectRoot: "/home/someone/else", Tree: tree}); other == s {
		t.Fatalf("two projects share the stand-in %s", s)
	}
	for _, r := range []remoterun.Request{{ProjectRoot: here}, {ProjectRoot: "relative", Tree: tree}, {Tree: tree}} {
		if s, err := l.mcpScope(r); s != "" || err != nil {
			t.Fatalf("%+v: %q %v, want the run's own project", r, s, err)
		}
	}
}
