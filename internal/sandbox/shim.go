package sandbox

import (
	"fmt"
	"strconv"
)

// The options of csa's exec shim (csa __exec) that carry a policy to the
// step that applies it: the paths travel as arguments, byte for byte.
const (
	FlagConfine     = "--confine-fs"
	FlagDenyRead    = "--deny-read"
	FlagWrite       = "--write"
	FlagConfineNet  = "--confine-net"
	FlagConnectPort = "--connect-port"
)

// ShimArgs are the exec shim's options that apply p; none when p confines
// nothing. The network's ports are all of p.Ports, the proxy's included.
func (p *Policy) ShimArgs() []string {
	var a []string
	if p.Confined() {
		a = append(a, FlagConfine)
		for _, d := range p.DenyRead {
			a = append(a, FlagDenyRead, d)
		}
		for _, w := range p.Write {
			a = append(a, FlagWrite, w)
		}
	}
	if p.NetConfined() {
		a = append(a, FlagConfineNet)
		for _, port := range p.Ports() {
			a = append(a, FlagConnectPort, strconv.Itoa(int(port)))
		}
	}
	return a
}

// ShimPolicy is the policy the shim's options carry, as ShimArgs wrote
// them; the other options are the resource layer's.
type ShimPolicy struct{ p Policy }

// Option takes one of the policy's options (flag and, for those that
// have one, its value); it reports false for an option of someone else.
func (s *ShimPolicy) Option(flag, value string) (bool, error) {
	switch flag {
	case FlagConfine:
		s.p.FS = MechLandlock
	case FlagConfineNet:
		s.p.Net = MechLandlockProxy
	case FlagDenyRead:
		s.p.DenyRead = append(s.p.DenyRead, value)
	case FlagWrite:
		s.p.Write = append(s.p.Write, value)
	case FlagConnectPort:
		n, err := strconv.ParseUint(value, 10, 16)
		if err != nil || n == 0 {
			return true, fmt.Errorf("%s %q is not a TCP port", flag, value)
		}
		s.p.ConnectPorts = append(s.p.ConnectPorts, uint16(n))
	default:
		return false, nil
	}
	return true, nil
}

// TakesValue reports whether flag is followed by a value.
func TakesValue(flag string) bool { return flag != FlagConfine && flag != FlagConfineNet }

// Apply confines the shim as its options say (nothing when they say
// nothing).
func (s *ShimPolicy) Apply() error {
	if !s.p.Enforced() {
		return nil
	}
	return Apply(&s.p)
}
