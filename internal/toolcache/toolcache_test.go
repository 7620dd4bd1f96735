package toolcache

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/csa-dev/csa/internal/agents"
)

var codex = agents.Program{Name: "codex", Package: "@openai/codex"}

func writeExe(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// csaAgent is the program built with csa, which has no pin.
var csaAgent = agents.Program{Name: "csa-agent"}

func TestPinsCoverTheRegistry(t *testing.T) {
	for _, p := range agents.Programs() {
		if p.BuiltWithCSA() {
			if _, err := Pinned(p); err == nil {
				t.Errorf("%s, built with csa, has an npm pin", p.Name)
			}
			continue
		}
		v, err := Pinned(p)
		if err != nil || v == "" {
			t.Errorf("%s: pinned %q, %v", p.Name, v, err)
		}
		if _, err := pinFile(p.Name, "package-lock.json"); err != nil {
			t.Errorf("%s: no lock file: %v", p.Name, err)
		}
	}
	for _, bad := range []string{"", "aider", "../claude", "claude/x"} {
		if _, err := Pinned(agents.Program{Name: bad}); err == nil {
			t.Errorf("Pinned(%q) succeeded", bad)
		}
	}
}

func TestBin(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("CSA_AGENTS_CACHE", cache)
	if _, err := Bin("codex"); !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "csa tools install") {
		t.Errorf("missing codex: %v", err)
	}
	bin := binPath(cache, "codex")
	writeExe(t, bin)
	if got, err := Bin("codex"); err != nil || got != bin {
		t.Errorf("Bin = %q, %v", got, err)
	}
	if _, err := Bin("aider"); err == nil || errors.Is(err, ErrNotInstalled) {
		t.Errorf("unknown program: %v", err)
	}
}

// TestLocate: a configured path as it is; a name on PATH; the tool's own
// name in the cache when PATH lacks it; another name never in the cache.
func TestLocate(t *testing.T) {
	cache, pathDir, other := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("CSA_AGENTS_CACHE", cache)
	t.Setenv("PATH", pathDir)
	explicit := filepath.Join(other, "my-codex")
	writeExe(t, explicit)

	if loc, err := Locate(explicit, codex); err != nil || loc != (Location{explicit, FromConfig}) {
		t.Errorf("configured path: %+v, %v", loc, err)
	}
	if _, err := Locate(filepath.Join(other, "missing"), codex); err == nil || !strings.Contains(err.Error(), "not an executable file") {
		t.Errorf("missing configured path: %v", err)
	}
	if _, err := Locate("codex", codex); err == nil || !strings.Contains(err.Error(), "nor in csa's cache") {
		t.Errorf("nowhere: %v", err)
	}
	cached := binPath(cache, "codex")
	writeExe(t, cached)
	if loc, err := Locate("codex", codex); err != nil || loc != (Location{cached, FromCache}) {
		t.Errorf("cache fallback: %+v, %v", loc, err)
	}
	if loc, err := Locate("", codex); err != nil || loc.Source != FromCache {
		t.Errorf("empty configured path: %+v, %v", loc, err)
	}
	onPath := filepath.Join(pathDir, "codex")
	writeExe(t, onPath)
	if loc, err := Locate("codex", codex); err != nil || loc != (Location{onPath, FromPATH}) {
		t.Errorf("PATH before the cache: %+v, %v", loc, err)
	}
	if _, err := Locate("codex-beta", codex); err == nil || !strings.Contains(err.Error(), "not found on PATH") {
		t.Errorf("another name must not fall back to the cache: %v", err)
	}
}

// TestLocateBuiltWithCSA: a program built with csa is found beside csa's
// own executable before PATH, never in the cache; a configured path and
// another name are taken as for any program.
func TestLocateBuiltWithCSA(t *testing.T) {
	cache, pathDir, csaDir := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("CSA_AGENTS_CACHE", cache)
	t.Setenv("PATH", pathDir)
	exe := csaExecutable
	t.Cleanup(func() { csaExecutable = exe })
	csaExecutable = func() (string, error) { return filepath.Join(csaDir, "csa"), nil }

	writeExe(t, binPath(cache, "csa-agent")) // never looked at
	_, err := Locate("", csaAgent)
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "built with csa, not found beside csa's executable nor on PATH") {
		t.Errorf("nowhere: %v", err)
	}
	onPath := filepath.Join(pathDir, "csa-agent")
	writeExe(t, onPath)
	if loc, err := Locate("csa-agent", csaAgent); err != nil || loc != (Location{onPath, FromPATH}) {
		t.Errorf("on PATH: %+v, %v", loc, err)
	}
	beside := filepath.Join(csaDir, "csa-agent")
	writeExe(t, beside)
	if loc, err := Locate("", csaAgent); err != nil || loc != (Location{beside, FromCSA}) {
		t.Errorf("beside csa before PATH: %+v, %v", loc, err)
	}
	explicit := filepath.Join(t.TempDir(), "agent")
	writeExe(t, explicit)
	if loc, err := Locate(explicit, csaAgent); err != nil || loc != (Location{explicit, FromConfig}) {
		t.Errorf("configured path: %+v, %v", loc, err)
	}
	writeExe(t, filepath.Join(csaDir, "my-agent"))
	if _, err := Locate("my-agent", csaAgent); err == nil || !strings.Contains(err.Error(), "not found on PATH") {
		t.Errorf("another name is looked up on PATH only: %v", err)
	}
	if InstallHint(agents.CSAAgent, csaAgent) != "make install" || InstallHint(agents.Codex, codex) != "csa tools install codex" {
		t.Error("InstallHint")
	}
}

// TestInstallBuiltWithCSA: csa tools install skips a program built with
// csa, with a note, and needs no npm for it.
func TestInstallBuiltWithCSA(t *testing.T) {
	t.Setenv("CSA_AGENTS_CACHE", t.TempDir())
	t.Setenv("PATH", t.TempDir()) // no npm
	exe := csaExecutable
	t.Cleanup(func() { csaExecutable = exe })
	csaDir := t.TempDir()
	csaExecutable = func() (string, error) { return filepath.Join(csaDir, "csa"), nil }
	var said []string
	say := func(p, msg string) { said = append(said, p+": "+msg) }
	res, err := Install(context.Background(), []agents.Program{csaAgent}, say)
	if err != nil || len(res) != 1 || res[0].Error != "" || res[0].Fresh || !strings.Contains(res[0].Note, "it is missing") {
		t.Errorf("missing: %+v, %v", res, err)
	}
	writeExe(t, filepath.Join(csaDir, "csa-agent"))
	res, err = Install(context.Background(), []agents.Program{csaAgent}, say)
	if err != nil || res[0].Path != filepath.Join(csaDir, "csa-agent") || res[0].Note != "built with csa, nothing to install: "+res[0].Path+" is beside csa" {
		t.Errorf("beside csa: %+v, %v", res, err)
	}
	if len(said) != 2 || !strings.HasPrefix(said[1], "csa-agent: built with csa") {
		t.Errorf("progress %q", said)
	}
}

// TestInstall runs the installer against a stand-in npm: the pin is
// written, `npm ci` runs in the program's prefix, the stamp makes a second
// install a no-op, and a failed npm is reported with its log.
func TestInstall(t *testing.T) {
	cache, bin := t.TempDir(), t.TempDir()
	t.Setenv("CSA_AGENTS_CACHE", cache)
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	calls := filepath.Join(t.TempDir(), "calls")
	npm := `#!/bin/sh
echo "$1 $(basename "$PWD")" >> ` + calls + `
test -f package-lock.json || exit 3
if [ "$(basename "$PWD")" = gemini ]; then echo "npm error broken" >&2; exit 1; fi
mkdir -p node_modules/.bin && printf '#!/bin/sh\n' > "node_modules/.bin/$(basename "$PWD")" && chmod +x "node_modules/.bin/$(basename "$PWD")"
`
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(npm), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Install(context.Background(), []agents.Program{codex}, func(string, string) {}); err == nil || !strings.Contains(err.Error(), "npm is needed") {
		t.Errorf("without npm: %v", err)
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	var mu sync.Mutex
	var said []string
	say := func(p, msg string) { mu.Lock(); said = append(said, p+": "+msg); mu.Unlock() }
	res, err := Install(context.Background(), []agents.Program{codex}, say)
	if err != nil || len(res) != 1 || !res[0].Fresh || res[0].Path != binPath(cache, "codex") || res[0].Version == "" {
		t.Fatalf("install: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(cache, "codex", ".stamp")); err != nil {
		t.Errorf("no stamp: %v", err)
	}
	res, err = Install(context.Background(), []agents.Program{codex}, say)
	if err != nil || res[0].Fresh {
		t.Errorf("second install was not a no-op: %+v, %v", res, err)
	}
	b, _ := os.ReadFile(calls)
	if string(b) != "ci codex\n" {
		t.Errorf("npm calls %q, want one `ci` in the codex prefix", b)
	}
	gemini := agents.Program{Name: "gemini", Package: "@google/gemini-cli"}
	res, err = Install(context.Background(), []agents.Program{codex, gemini, csaAgent}, say)
	if err == nil || res[1].Error == "" || !strings.Contains(res[1].Error, "npm error broken") || res[0].Error != "" {
		t.Errorf("failed npm: %+v, %v", res, err)
	}
	if res[2].Error != "" || res[2].Note == "" || !strings.Contains(err.Error(), "gemini") || strings.Contains(err.Error(), "csa-agent") {
		t.Errorf("csa-agent beside npm programs: %+v, %v", res[2], err)
	}
	if joined := strings.Join(said, "\n"); !strings.Contains(joined, "codex: installing @openai/codex@") || !strings.Contains(joined, "codex: @openai/codex@") {
		t.Errorf("progress:\n%s", joined)
	}
}
