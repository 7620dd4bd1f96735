package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Probe returns the Landlock ABI version the kernel offers, or 0 and why
// there is none.
func Probe() (int, string) {
	// How csa's tests try required and best-effort where Landlock is.
	if os.Getenv(csaenv.TestNoLandlock) == "1" {
		return 0, "Landlock is unavailable (" + csaenv.TestNoLandlock + "=1)"
	}
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return 0, fmt.Sprintf("the kernel offers no Landlock (%v): it needs Linux 5.13+ with landlock in the lsm= list", err)
	}
	return abi, ""
}

// Devices the programs write to whatever the policy: the terminal, the
// null device, shared memory.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm"}

// Apply confines this process and its future children as p says: every
// path may be read but p.DenyRead (and below them), only p.Write (and
// below) may be changed, and TCP connects go only to p.Ports. It is the
// last step before execve: the restriction holds for all threads and
// cannot be lifted.
func Apply(p *Policy) error {
	config, rules, err := landlockOf(p)
	if err != nil {
		return err
	}
	if err := config.Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// landlockOf is p as a Landlock configuration and its rules. Files and
// the network are handled independently: what p does not confine, the
// ruleset does not handle. Of the network only TCP connect is handled,
// not bind: the program may run local servers.
func landlockOf(p *Policy) (landlock.Config, []landlock.Rule, error) {
	var config landlock.Config
	var rules []landlock.Rule
	if p.Confined() {
		config.HandledAccessFS = landlock.V7.HandledAccessFS
		fs, err := rulesFor(p.DenyRead, p.Write)
		if err != nil {
			return config, nil, err
		}
		rules = fs
	}
	if p.NetConfined() {
		config.HandledAccessNet = llsys.AccessNetConnectTCP
		for _, port := range p.Ports() {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	// Decide checked the ABI: best effort only drops the file rights a
	// kernel older than ABI 7 does not know.
	return config.BestEffort(), rules, nil
}

// rulesFor are the Landlock rules of deny and write.
func rulesFor(deny, write []string) ([]landlock.Rule, error) {
	read, listOnly, err := readableAround(deny, write)
	if err != nil {
		return nil, err
	}
	// What was listed may be gone by the time its rule is added (another
	// program's temporary file beside a secret): nothing to grant then.
	rules := []landlock.Rule{landlock.PathAccess(llsys.AccessFSReadDir, listOnly...).IgnoreIfMissing()}
	for _, r := range read {
		if r.dir {
			rules = append(rules, landlock.RODirs(r.path).IgnoreIfMissing())
		} else {
			rules = append(rules, landlock.ROFiles(r.path).IgnoreIfMissing())
		}
	}
	for _, w := range append(append([]string(nil), write...), devices...) {
		fi, err := os.Stat(w)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			return nil, err
		case fi.IsDir():
			rules = append(rules, landlock.RWDirs(w).WithIoctlDev())
		default:
			rules = append(rules, landlock.RWFiles(w).WithIoctlDev())
		}
	}
	return rules, nil
}

// readable is a path granted for reading whole (and executing).
type readable struct {
	path string
	dir  bool
}

// readableAround lists what makes "everything but deny" readable under
// Landlock, which can only allow: each directory on the way to a denied
// path may be listed (listOnly), and each of its other entries is
// readable whole. It is computed at start: what appears later beside a
// denied path is not readable. A directory inside a writable one needs
// no rules: writing includes reading (such a denial is not enforced, and
// Decide says so).
func readableAround(deny, write []string) (read []readable, listOnly []string, err error) {
	deny = withTargets(deny)
	onWay := map[string]bool{}
	for _, d := range deny {
		for a := filepath.Dir(d); ; a = filepath.Dir(a) {
			onWay[a] = true
			if a == "/" {
				break
			}
		}
	}
	if len(deny) == 0 {
		return []readable{{"/", true}}, nil, nil
	}
	for dir := range onWay {
		if within(dir, deny) != "" || within(dir, write) != "" {
			continue // inside a denied path, or granted whole
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // a missing or unreadable directory grants nothing
		}
		listOnly = append(listOnly, dir)
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if onWay[p] || within(p, deny) != "" {
				continue
			}
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				continue // dangling: nothing to read
			}
			// A link into a denied path, or onto a directory on the way
			// to one, would grant what is denied.
			if within(target, deny) != "" || onWay[target] {
				continue
			}
			fi, err := os.Stat(target)
			if err != nil {
				continue
			}
			read = append(read, readable{target, fi.IsDir()})
		}
	}
	return read, listOnly, nil
}

// withTargets adds the real path of each denied path that is a symbolic
// link (or under one), so both spellings are denied.
func withTargets(deny []string) []string {
	out := append([]string(nil), deny...)
	for _, d := range deny {
		if t, err := filepath.EvalSymlinks(d); err == nil && t != d {
			out = append(out, t)
		}
	}
	return out
}
