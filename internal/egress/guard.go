package egress

import "net/netip"

// Addresses that are not the public internet: reaching them through a
// name that happens to resolve there (DNS rebinding) would hand the
// agent the machine's own services or the local network, so they are
// allowed only when an IP rule names them.
var localPrefixes = []struct {
	prefix netip.Prefix
	kind   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier NAT)"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
}

// localKind says what kind of non-public address ip is, or "" for a
// public one.
func localKind(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, p := range localPrefixes {
		if p.prefix.Contains(ip) {
			return p.kind
		}
	}
	return ""
}
