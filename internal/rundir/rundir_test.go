package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirPrivate(t *testing.T) {
	rt := t.TempDir()
	d, err := Dir(rt)
	if err != nil || d != filepath.Join(rt, "csa") {
		t.Fatalf("%q %v", d, err)
	}
	if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("%v %v", fi.Mode(), err)
	}
	long := filepath.Join(rt, strings.Repeat("x", 100))
	if d, err := Dir(long); err != nil || len(d) > MaxLen {
		t.Fatalf("long runtime dir: %q %v", d, err)
	}
	os.Chmod(filepath.Join(rt, "csa"), 0o777)
	if _, err := Dir(rt); err == nil {
		t.Fatal("a world-writable socket directory was accepted")
	}
}
