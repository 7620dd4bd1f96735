package rundir

import (
	"os"
	"path/filepath"
	"strconv"
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

// Without XDG_RUNTIME_DIR the directory is csa-UID in the temporary
// directory, which follows $TMPDIR (docs/sessions.md says so).
func TestDirFollowsTMPDIR(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	want := filepath.Join(tmp, "csa-"+strconv.Itoa(os.Getuid()))
	if d, err := Dir(""); err != nil || d != want {
		t.Fatalf("Dir(\"\") with TMPDIR=%s: %q %v, want %s", tmp, d, err, want)
	}
	long := filepath.Join(tmp, strings.Repeat("y", 100))
	t.Setenv("TMPDIR", long)
	if d, err := Dir(""); err != nil || d != filepath.Join("/tmp", "csa-"+strconv.Itoa(os.Getuid())) {
		t.Fatalf("Dir(\"\") with a TMPDIR too long for a socket: %q %v, want /tmp/csa-UID", d, err)
	}
}
