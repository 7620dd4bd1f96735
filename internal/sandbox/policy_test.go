package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseIsolate(t *testing.T) {
	for in, want := range map[string]Isolate{"fs": {FS: true}, "net": {Net: true}, "fs,net": {true, true}, "none": {}} {
		got, err := ParseIsolate(in)
		if err != nil || got != want {
			t.Errorf("ParseIsolate(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "disk", "fs,none", "fs,"} {
		if _, err := ParseIsolate(bad); err == nil {
			t.Errorf("ParseIsolate(%q) accepted", bad)
		}
	}
}

func TestDecide(t *testing.T) {
	fs := Request{Isolate: Isolate{FS: true}, Mode: Required, DenyRead: []string{"/h/.ssh"}, Write: []string{"/w", "/w"}}
	p, err := Decide(fs, 7, "")
	if err != nil || !p.Confined() || p.Warning != "" || !slices.Equal(p.Write, []string{"/w"}) {
		t.Fatalf("required with Landlock: %+v, %v", p, err)
	}
	var refused *RefusedError
	if _, err := Decide(fs, 0, "no landlock"); !errors.As(err, &refused) || !strings.Contains(err.Error(), "no landlock") {
		t.Errorf("required without Landlock: %v", err)
	}
	fs.Mode = BestEffort
	if p, err := Decide(fs, 0, "no landlock"); err != nil || p.Confined() || !strings.Contains(p.Warning, "no landlock") {
		t.Errorf("best-effort without Landlock: %+v, %v", p, err)
	}
	// A secret inside a writable folder cannot be denied: said, not hidden.
	home := fs
	home.Write = []string{"/h"}
	if p, _ := Decide(home, 7, ""); !strings.Contains(p.Warning, "/h/.ssh is not denied: /h is writable") {
		t.Errorf("secret inside a writable folder: %+v", p)
	}
	home.Mode = Required
	if _, err := Decide(home, 7, ""); !errors.As(err, &refused) {
		t.Errorf("required, secret inside a writable folder: %v", err)
	}
	net := Request{Isolate: Isolate{Net: true}, Mode: BestEffort}
	if p, _ := Decide(net, 7, ""); p.Net != NetNotEnforced || !strings.Contains(p.Warning, "not implemented") {
		t.Errorf("net: %+v", p)
	}
	if p, err := Decide(Request{Mode: Required}, 0, ""); p != nil || err != nil {
		t.Errorf("nothing asked: %+v, %v", p, err)
	}
	if _, err := Decide(Request{Isolate: Isolate{FS: true}, Write: []string{"rel"}}, 7, ""); err == nil {
		t.Error("a relative path was accepted")
	}
}

// TestReadableAround: everything beside the path to a secret is readable
// whole, the folders on the way only listed, and a link into the secret
// is not followed into a grant.
func TestReadableAround(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	for _, d := range []string{".ssh", ".config/gh", ".config/other", "src"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, "notes"), nil, 0o600)
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "keys"))
	read, listOnly, err := readableAround([]string{filepath.Join(home, ".ssh"), filepath.Join(home, ".config/gh")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range read {
		paths = append(paths, r.path)
	}
	for _, want := range []string{filepath.Join(home, "src"), filepath.Join(home, "notes"), filepath.Join(home, ".config/other")} {
		if !slices.Contains(paths, want) {
			t.Errorf("%s is not readable: %v", want, paths)
		}
	}
	for _, p := range paths {
		if under(p, filepath.Join(home, ".ssh")) || under(p, filepath.Join(home, ".config/gh")) || p == home {
			t.Errorf("%s is granted", p)
		}
	}
	for _, want := range []string{"/", home, filepath.Join(home, ".config")} {
		if !slices.Contains(listOnly, want) {
			t.Errorf("%s is not listed: %v", want, listOnly)
		}
	}
	// Under a writable folder nothing more is needed.
	_, listOnly, _ = readableAround([]string{filepath.Join(home, ".ssh")}, []string{dir})
	if slices.Contains(listOnly, home) {
		t.Errorf("a folder inside a writable one got rules: %v", listOnly)
	}
}
