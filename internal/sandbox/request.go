package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultDenyRead are the user's secrets every confined run is kept from,
// relative to HOME; the other tools' credentials (agents.Spec.Credentials)
// are added for each run (Where.Others).
var DefaultDenyRead = []string{".ssh", ".gnupg", ".aws", ".config/gh", ".netrc"}

// Where is what a run's paths are made of.
type Where struct {
	Home     string
	TempDir  string
	StateDir string   // csa's state: the run's session and a nested run's
	Also     []string // more places csa itself writes for the run (its socket directory)
	// OwnDirs and OwnFiles are the tool's own state, Others the other
	// tools' credentials, relative to Home (from the tool registry).
	OwnDirs, OwnFiles, Others []string
	// DenyRead and AllowWrite are the configuration's, ~ for Home.
	DenyRead, AllowWrite []string
}

// NewRequest is the request of a run: the secrets denied (the defaults,
// the other tools' credentials, the configured), and where it may write
// (the tool's own state, the temp dir, csa's state, the configured). The
// run's working directory is added once it is known (Policy.WithWrite).
func NewRequest(iso Isolate, mode string, w Where) Request {
	r := Request{Isolate: iso, Mode: mode}
	home := func(p string) string { return filepath.Join(w.Home, p) }
	for _, d := range append(append([]string(nil), DefaultDenyRead...), w.Others...) {
		r.DenyRead = append(r.DenyRead, home(d))
	}
	for _, d := range append(append([]string(nil), w.OwnDirs...), w.OwnFiles...) {
		r.Write = append(r.Write, home(d))
	}
	for _, d := range w.DenyRead {
		r.DenyRead = append(r.DenyRead, expand(w.Home, d))
	}
	r.Write = append(r.Write, w.TempDir, w.StateDir)
	r.Write = append(r.Write, w.Also...)
	for _, a := range w.AllowWrite {
		r.Write = append(r.Write, expand(w.Home, a))
	}
	return r
}

// expand reads ~ and ~/ as home.
func expand(home, p string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}

// WithWrite is p with dir writable too (the run's working directory);
// p itself is not changed.
func (p *Policy) WithWrite(dir string) *Policy {
	if !p.Confined() || dir == "" || slices.Contains(p.Write, filepath.Clean(dir)) {
		return p
	}
	q := *p
	q.Write = append(append([]string(nil), p.Write...), filepath.Clean(dir))
	for _, d := range q.DenyRead {
		if under(d, dir) || under(dir, d) {
			q.Warning = join(q.Warning, d+" is not denied: the working directory "+dir+" is writable")
		}
	}
	return &q
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// MakeStateDirs makes the tool's state directories that are missing
// (private to the user): a confined program could not make them itself,
// in a HOME it may not write.
func MakeStateDirs(w Where) error {
	for _, d := range w.OwnDirs {
		if err := os.MkdirAll(filepath.Join(w.Home, d), 0o700); err != nil {
			return err
		}
	}
	return nil
}
