package sandbox

// The options of csa's exec shim (csa __exec) that carry a policy to the
// step that applies it: the paths travel as arguments, byte for byte.
const (
	FlagConfine  = "--confine-fs"
	FlagDenyRead = "--deny-read"
	FlagWrite    = "--write"
)

// ShimArgs are the exec shim's options that apply p; none when p does not
// confine files.
func (p *Policy) ShimArgs() []string {
	if !p.Confined() {
		return nil
	}
	a := []string{FlagConfine}
	for _, d := range p.DenyRead {
		a = append(a, FlagDenyRead, d)
	}
	for _, w := range p.Write {
		a = append(a, FlagWrite, w)
	}
	return a
}
