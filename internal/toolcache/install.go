package toolcache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/lock"
	"github.com/csa-dev/csa/internal/proc"
)

// Installed is the outcome of installing one program.
type Installed struct {
	Program string `json:"program"`
	Package string `json:"package"`
	Version string `json:"version"`
	Path    string `json:"path,omitempty"`
	// Fresh is false when the pinned version was already there.
	Fresh    bool   `json:"installed"`
	Duration int64  `json:"duration_ms"`
	Log      string `json:"log,omitempty"`
	Error    string `json:"error,omitempty"`
	// Note says why nothing was installed: the program is built with csa.
	Note string `json:"note,omitempty"`
}

// Progress receives one line about a program's install as it goes.
type Progress func(program, msg string)

// progressEvery is how often a long install says it is still going.
const progressEvery = 15 * time.Second

// lockWait bounds the wait for another csa installing the same program.
const lockWait = 15 * time.Minute

// Install installs the pinned version of each program into the cache, all
// at once, each with `npm ci` from its lock file. A program whose pin is
// already installed is left as it is, so a second run is instant. A
// program built with csa is not installed (make build and make install
// put it beside csa): its entry says so and where it is, and never fails.
func Install(ctx context.Context, programs []agents.Program, say Progress) ([]Installed, error) {
	out := make([]Installed, len(programs))
	npmNeeded := false
	for i, p := range programs {
		if p.BuiltWithCSA() {
			out[i] = builtWithCSA(p, say)
		} else {
			npmNeeded = true
		}
	}
	if !npmNeeded {
		return out, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, fmt.Errorf("npm is needed to install the agent programs (install Node.js and npm): %w", err)
	}
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	for i, p := range programs {
		if p.BuiltWithCSA() {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = installOne(ctx, npm, dir, p, say)
		}()
	}
	wg.Wait()
	var errs []error
	for _, r := range out {
		if r.Error != "" {
			errs = append(errs, fmt.Errorf("%s: %s", r.Program, r.Error))
		}
	}
	return out, errors.Join(errs...)
}

// builtWithCSA is the entry of a program built with csa: nothing to
// install, and where it is found, if it is.
func builtWithCSA(p agents.Program, say Progress) Installed {
	r := Installed{Program: p.Name}
	loc, err := Locate("", p)
	switch {
	case err != nil:
		r.Note = "built with csa, nothing to install: it is missing (make install, in csa's source tree, puts it beside csa)"
	case loc.Source == FromCSA:
		r.Path, r.Note = loc.Path, "built with csa, nothing to install: "+loc.Path+" is beside csa"
	default:
		r.Path, r.Note = loc.Path, "built with csa, nothing to install: "+loc.Path+" is on "+loc.Source
	}
	say(p.Name, r.Note)
	return r
}

func installOne(ctx context.Context, npm, dir string, p agents.Program, say Progress) Installed {
	r := Installed{Program: p.Name, Package: p.Package}
	fail := func(err error) Installed {
		r.Error = err.Error()
		say(p.Name, "failed: "+r.Error)
		return r
	}
	var err error
	if r.Version, err = Pinned(p); err != nil {
		return fail(err)
	}
	pkg, err1 := pinFile(p.Name, "package.json")
	lockFile, err2 := pinFile(p.Name, "package-lock.json")
	if err := errors.Join(err1, err2); err != nil {
		return fail(err)
	}
	dst := filepath.Join(dir, p.Name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fail(err)
	}
	// Another csa (a parallel test run) may be installing the same one.
	l := lock.New(filepath.Join(dst, ".lock"))
	if err := l.LockTimeout(ctx, lockWait); err != nil {
		return fail(err)
	}
	defer l.Unlock()
	bin, stamp, want := binPath(dir, p.Name), filepath.Join(dst, ".stamp"), Fingerprint(pkg, lockFile)
	if b, err := os.ReadFile(stamp); err == nil && string(bytes.TrimSpace(b)) == want && executable(bin) {
		r.Path = bin
		say(p.Name, fmt.Sprintf("%s@%s is installed: %s", p.Package, r.Version, bin))
		return r
	}
	os.Remove(stamp)
	if err := errors.Join(fsutil.WriteFileReplace(filepath.Join(dst, "package.json"), pkg),
		fsutil.WriteFileReplace(filepath.Join(dst, "package-lock.json"), lockFile)); err != nil {
		return fail(err)
	}
	say(p.Name, fmt.Sprintf("installing %s@%s into %s", p.Package, r.Version, dst))
	start := time.Now()
	r.Log = filepath.Join(dst, "install.log")
	if err := npmInstall(ctx, npm, dst, r.Log, func() {
		say(p.Name, fmt.Sprintf("still installing (%s)", time.Since(start).Round(time.Second)))
	}); err != nil {
		return fail(err)
	}
	if !executable(bin) {
		return fail(fmt.Errorf("installed, but %s is missing (see %s)", bin, r.Log))
	}
	if err := fsutil.WriteFileReplace(stamp, []byte(want+"\n")); err != nil {
		return fail(err)
	}
	r.Path, r.Fresh, r.Duration = bin, true, time.Since(start).Milliseconds()
	say(p.Name, fmt.Sprintf("installed in %s: %s", time.Since(start).Round(time.Second), bin))
	return r
}

// npmInstall runs `npm ci` in dst, logging to log. The registry lacks some
// platform packages that opencode-ai lists as optional dependencies, so its
// lock cannot name them and npm ci calls it out of sync; npm install then
// still installs exactly the locked tree.
func npmInstall(ctx context.Context, npm, dst, log string, tick func()) error {
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				tick()
			}
		}
	}()
	run := func(verb string) (int, error) {
		ps, err := proc.Run(ctx, proc.Spec{
			Path: npm, Args: []string{verb, "--no-audit", "--no-fund", "--loglevel=error"}, Dir: dst,
			Env: os.Environ(), Stdout: f, Stderr: f, DieWithParent: true,
		}, 2*time.Second)
		if err != nil {
			return -1, err
		}
		return ps.ExitCode(), nil
	}
	code, err := run("ci")
	if err != nil {
		return err
	}
	if code != 0 {
		b, _ := os.ReadFile(log)
		if !bytes.Contains(b, []byte("can only install packages when your package.json and package-lock.json")) {
			return fmt.Errorf("npm ci exited %d: %s (log %s)", code, lastLine(b), log)
		}
		if code, err = run("install"); err != nil {
			return err
		}
		if code != 0 {
			b, _ := os.ReadFile(log)
			return fmt.Errorf("npm install exited %d: %s (log %s)", code, lastLine(b), log)
		}
	}
	return nil
}

// Fingerprint names a pin, as `sha256sum package.json package-lock.json
// | sha256sum` would, so installs made from the same pin are recognised
// (the stamp of an install; scripts/mcp-servers.sh writes the same).
func Fingerprint(pkg, lockFile []byte) string {
	list := fmt.Sprintf("%x  package.json\n%x  package-lock.json\n", sha256.Sum256(pkg), sha256.Sum256(lockFile))
	return fmt.Sprintf("%x", sha256.Sum256([]byte(list)))
}

func lastLine(b []byte) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(lines[len(lines)-1])
}
