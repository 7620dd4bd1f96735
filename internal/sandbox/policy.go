// Package sandbox confines an agent program's files: it decides a run's
// policy (what may be read, what may be written) from config and flags,
// and applies it with Landlock in the last step before the program runs
// (the thread that starts it, or csa's exec shim), so that the program and
// every process it starts are held by the kernel. The network is confined
// the same way (Landlock TCP-connect rules by port) with csa's egress
// proxy (internal/egress) as the one way out: see docs/sandbox-network.md.
package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Enforcement modes: the closed set of sandbox.mode.
const (
	Required   = "required"    // refuse to start where the kernel cannot confine
	BestEffort = "best-effort" // run anyway, and record what was not enforced
)

// Modes lists the enforcement modes.
var Modes = []string{Required, BestEffort}

// ParseMode accepts an enforcement mode in any letter case.
func ParseMode(s string) (string, error) {
	for _, m := range Modes {
		if strings.EqualFold(s, m) {
			return m, nil
		}
	}
	return "", fmt.Errorf("%q is not one of %s", s, strings.Join(Modes, ", "))
}

// The words of --isolate and tools.NAME.isolate: the closed set of what
// can be confined.
const (
	WordFS   = "fs"
	WordNet  = "net"
	WordNone = "none"
)

// Isolate is what a run asks to have confined.
type Isolate struct {
	FS  bool `json:"fs"`
	Net bool `json:"net"`
}

// ParseIsolate reads "fs", "net", "fs,net" or "none".
func ParseIsolate(s string) (Isolate, error) {
	var iso Isolate
	for _, w := range strings.Split(s, ",") {
		switch strings.TrimSpace(w) {
		case WordFS:
			iso.FS = true
		case WordNet:
			iso.Net = true
		case WordNone:
			if s != WordNone {
				return Isolate{}, fmt.Errorf("%q: none stands alone", s)
			}
		default:
			return Isolate{}, fmt.Errorf("%q: each word is one of %s, %s (or %s alone)", s, WordFS, WordNet, WordNone)
		}
	}
	return iso, nil
}

// Request is a run's ask: what to isolate, how strictly, and the paths.
// Paths are absolute (~ already expanded).
type Request struct {
	Isolate  Isolate
	Mode     string
	DenyRead []string // readable nowhere, though reading is allowed elsewhere
	Write    []string // the only places writes are allowed
	Net      NetRequest
}

// Policy is what a run gets, as the session records it and csa inspect
// shows it.
type Policy struct {
	// FS is the mechanism that confines files: "landlock", or "none".
	FS   string `toml:"fs" json:"fs"`
	Mode string `toml:"mode" json:"mode"`
	ABI  int    `toml:"landlock_abi,omitempty" json:"landlock_abi,omitempty"`
	// Net is the mechanism that confines the network when it was asked
	// for: "landlock+proxy", or "none" (the warning says why).
	Net      string   `toml:"net,omitempty" json:"net,omitempty"`
	DenyRead []string `toml:"deny_read,omitempty" json:"deny_read,omitempty"`
	Write    []string `toml:"write,omitempty" json:"write,omitempty"`
	// AllowHosts are the egress proxy's allow rules (internal/egress);
	// ConnectPorts the TCP ports the program may connect to directly,
	// besides the proxy's (its model servers on loopback).
	AllowHosts   []string `toml:"allow_hosts,omitempty" json:"allow_hosts,omitempty"`
	ConnectPorts []uint16 `toml:"connect_ports,omitempty" json:"connect_ports,omitempty"`
	// Proxy is the egress proxy's address (127.0.0.1:PORT): the run's
	// own, set when it starts, or its parent's (ProxyInherited), whose
	// allow list then applies.
	Proxy          string `toml:"proxy,omitempty" json:"proxy,omitempty"`
	ProxyInherited bool   `toml:"proxy_inherited,omitempty" json:"proxy_inherited,omitempty"`
	// Denied counts the connections the proxy refused (the run's
	// sandbox.denied events).
	Denied int `toml:"denied,omitempty" json:"denied,omitempty"`
	// Warning says what a best-effort run asked for and did not get.
	Warning string `toml:"warning,omitempty" json:"warning,omitempty"`
}

// Confined reports whether the program's files are confined.
func (p *Policy) Confined() bool { return p != nil && p.FS == MechLandlock }

// NetConfined reports whether the program's network is confined.
func (p *Policy) NetConfined() bool { return p != nil && p.Net == MechLandlockProxy }

// Enforced reports whether anything of the program is confined.
func (p *Policy) Enforced() bool { return p.Confined() || p.NetConfined() }

// The mechanisms: Landlock for files (see docs/sandbox.md for why not
// bubblewrap), Landlock's TCP rules and csa's egress proxy for the
// network (docs/sandbox-network.md for why not a network namespace).
const (
	MechLandlock      = "landlock"
	MechLandlockProxy = "landlock+proxy"
	MechNone          = "none"
)

// RefusedError is a required run that cannot be confined here: it is
// refused before anything starts.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// Decide turns a request into the run's policy, given the Landlock ABI
// the kernel offers (0 for none, with the reason). It returns nil when
// nothing was asked.
func Decide(req Request, abi int, why string) (*Policy, error) {
	if !req.Isolate.FS && !req.Isolate.Net {
		return nil, nil
	}
	p := &Policy{FS: MechNone, Mode: req.Mode}
	var missing []string
	if req.Isolate.FS {
		switch {
		case abi > 0:
			p.FS, p.ABI = MechLandlock, abi
			var err error
			if p.DenyRead, err = clean(req.DenyRead); err != nil {
				return nil, err
			}
			if p.Write, err = clean(req.Write); err != nil {
				return nil, err
			}
			for _, d := range p.DenyRead {
				for _, w := range p.Write {
					if under(d, w) || under(w, d) {
						missing = append(missing, fmt.Sprintf("%s is not denied: %s is writable", d, w))
					}
				}
			}
		default:
			missing = append(missing, "files are not confined: "+why)
		}
	}
	if req.Isolate.Net {
		p.Net = MechNone
		switch {
		case abi >= NetABI:
			if err := p.decideNet(req.Net); err != nil {
				return nil, err
			}
			p.Net, p.ABI = MechLandlockProxy, abi
		case abi > 0:
			missing = append(missing, fmt.Sprintf("the network is not confined: Landlock ABI %d has no TCP rules (ABI %d has)", abi, NetABI))
		default:
			missing = append(missing, "the network is not confined: "+why)
		}
	}
	if len(missing) == 0 {
		return p, nil
	}
	if req.Mode == Required {
		return nil, &RefusedError{"sandbox mode required: " + strings.Join(missing, "; ")}
	}
	p.Warning = strings.Join(missing, "; ")
	if p.FS != MechLandlock {
		p.DenyRead, p.Write = nil, nil
	}
	return p, nil
}

// clean cleans absolute paths and drops repeats.
func clean(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("sandbox path %q is not absolute", p)
		}
		if p = filepath.Clean(p); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// within returns the first of dirs that is path or holds it; "".
func within(path string, dirs []string) string {
	for _, d := range dirs {
		if under(path, d) {
			return d
		}
	}
	return ""
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool {
	if path == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}
