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
	net := Request{Isolate: Isolate{Net: true}, Mode: BestEffort, Net: NetRequest{
		Endpoints: []string{"http://127.0.0.1:4567/v1", "http://localhost:8080", "https://models.example.com/v1"},
		Hosts:     []string{"api.anthropic.com"}}}
	p, err = Decide(net, 7, "")
	if err != nil || !p.NetConfined() || p.Confined() || p.Warning != "" {
		t.Fatalf("net with ABI 7: %+v, %v", p, err)
	}
	if !slices.Equal(p.ConnectPorts, []uint16{4567, 8080}) {
		t.Errorf("loopback ports: %v", p.ConnectPorts)
	}
	want := []string{"127.0.0.1:4567", "127.0.0.1:8080", "[::1]:8080", "models.example.com:443", "api.anthropic.com"}
	if !slices.Equal(p.AllowHosts, want) {
		t.Errorf("allow rules: %v, want %v", p.AllowHosts, want)
	}
	own := p.WithProxy("127.0.0.1:9999")
	if !slices.Equal(own.Ports(), []uint16{4567, 8080, 9999}) || len(p.Ports()) != 2 {
		t.Errorf("ports with the proxy: %v (policy itself: %v)", own.Ports(), p.Ports())
	}
	if a := own.ShimArgs(); !slices.Equal(a, []string{FlagConfineNet, FlagConnectPort, "4567", FlagConnectPort, "8080", FlagConnectPort, "9999"}) {
		t.Errorf("shim args: %q", a)
	}
	inherited := net
	inherited.Net.Proxy = "127.0.0.1:7777"
	if p, _ := Decide(inherited, 7, ""); !p.ProxyInherited || !slices.Contains(p.Ports(), 7777) {
		t.Errorf("a parent's proxy: %+v", p)
	}
	inherited.Net.Proxy = "10.0.0.1:7777"
	if _, err := Decide(inherited, 7, ""); err == nil {
		t.Error("a proxy not on loopback was accepted")
	}
	// Landlock without TCP rules, or none: said (best effort), refused
	// (required).
	if p, _ := Decide(net, 3, ""); p.NetConfined() || !strings.Contains(p.Warning, "ABI 3 has no TCP rules") {
		t.Errorf("net with ABI 3: %+v", p)
	}
	net.Mode = Required
	if _, err := Decide(net, 3, ""); !errors.As(err, &refused) {
		t.Errorf("required net with ABI 3: %v", err)
	}
	bad := net
	bad.Net.Hosts = []string{"http://x.example"}
	if _, err := Decide(bad, 7, ""); err == nil {
		t.Error("a URL as an allow rule was accepted")
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
