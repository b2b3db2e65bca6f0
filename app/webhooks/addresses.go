package webhooks

import (
	"encoding/binary"
	"net/netip"

	"code.dny.dev/ssrf"
)

// guard decides which addresses a delivery may reach. code.dny.dev/ssrf generates its lists from
// IANA's special-purpose address registries (IPv4 and IPv6) and refuses every IPv6 address
// outside global unicast (2000::/3); ports are the URL's business, not the guard's.
var guard = ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork())

// nat64 is RFC 6052's well-known NAT64 prefix: IANA lists it as globally reachable, and an
// IPv6-only host behind DNS64 reaches every IPv4 receiver through it, so an address in it is as
// public as the IPv4 address in its low 32 bits.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Prefixes of IPv6 addresses that carry an IPv4 address. Each is refused whole (none is globally
// reachable); the IPv4 address inside is looked at so that the refusal says where it would lead.
var (
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")  // RFC 8215, local-use NAT64
	sixToFour  = netip.MustParsePrefix("2002::/16")       // RFC 3056
	teredo     = netip.MustParsePrefix("2001::/32")       // RFC 4380
	translated = netip.MustParsePrefix("::ffff:0:0:0/96") // RFC 2765, IPv4-translated
)

// names say in words what the guard refused, narrowest range first; a range not named here is
// called by its prefix. They name, they do not decide: the guard's lists do.
var names = []struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("0.0.0.0/32"), "the unspecified address"},
	{netip.MustParsePrefix("0.0.0.0/8"), "a “this network” address"}, // Linux dials 0.x as the host itself
	{netip.MustParsePrefix("10.0.0.0/8"), "a private address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (carrier-grade NAT) address"},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address"}, // cloud metadata services live here
	{netip.MustParsePrefix("172.16.0.0/12"), "a private address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol address"},
	{netip.MustParsePrefix("192.0.2.0/24"), "a documentation address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a network-benchmarking address"},
	{netip.MustParsePrefix("198.51.100.0/24"), "a documentation address"},
	{netip.MustParsePrefix("203.0.113.0/24"), "a documentation address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("255.255.255.255/32"), "the broadcast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	{netip.MustParsePrefix("::/128"), "the unspecified address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{translated, "an IPv4-translated address"},
	{netip.MustParsePrefix("::/96"), "an IPv4-compatible address"},
	{nat64Local, "a local-use NAT64 address"},
	{teredo, "a Teredo address"},
	{netip.MustParsePrefix("2001:db8::/32"), "a documentation address"},
	{sixToFour, "a 6to4 address"},
	{netip.MustParsePrefix("3fff::/20"), "a documentation address"},
	{netip.MustParsePrefix("fc00::/7"), "a unique-local address"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
}

// nonPublicReason says why a delivery must not reach addr ("a private address"), or "" when addr
// is public. An IPv4-mapped address (::ffff:10.0.0.1) counts as the IPv4 address it maps, and a
// NAT64 one (64:ff9b::a00:1) as the IPv4 address it carries. Every other form that carries an
// IPv4 address is refused, naming that address when it is not public itself.
func nonPublicReason(addr netip.Addr) string {
	addr = addr.Unmap().WithZone("")
	if nat64.Contains(addr) {
		if why := nonPublicReason(embeddedIPv4(addr, 12)); why != "" {
			return why + " behind a NAT64 prefix"
		}
		return ""
	}
	if guard.SafeAddr(addr) == nil {
		return ""
	}
	what := rangeName(addr)
	for _, inner := range carried(addr) {
		if why := nonPublicReason(inner); why != "" {
			return what + " carrying " + inner.String() + ", " + why
		}
	}
	return what
}

// carried returns the IPv4 addresses an IPv6 address carries, if it is of a form that does.
func carried(addr netip.Addr) []netip.Addr {
	switch {
	case !addr.Is6():
		return nil
	case translated.Contains(addr):
		return []netip.Addr{embeddedIPv4(addr, 12)}
	case nat64Local.Contains(addr):
		// RFC 6052, a /48 prefix: 16 bits of the IPv4 address, the reserved octet, 16 bits.
		b := addr.As16()
		return []netip.Addr{netip.AddrFrom4([4]byte{b[6], b[7], b[9], b[10]})}
	case sixToFour.Contains(addr):
		return []netip.Addr{embeddedIPv4(addr, 2)}
	case teredo.Contains(addr):
		// The Teredo server's address, then the client's, stored inverted (RFC 4380, section 4).
		client := binary.BigEndian.Uint32(addr.AsSlice()[12:]) ^ 0xffffffff
		var c [4]byte
		binary.BigEndian.PutUint32(c[:], client)
		return []netip.Addr{embeddedIPv4(addr, 4), netip.AddrFrom4(c)}
	}
	return nil
}

// embeddedIPv4 reads the IPv4 address at byte offset at of an IPv6 address.
func embeddedIPv4(addr netip.Addr, at int) netip.Addr {
	b := addr.As16()
	return netip.AddrFrom4([4]byte(b[at : at+4]))
}

// rangeName names the refused range addr is in.
func rangeName(addr netip.Addr) string {
	for _, n := range names {
		if n.prefix.Contains(addr) {
			return n.what
		}
	}
	for _, p := range append(ssrf.IPv4DeniedPrefixes, ssrf.IPv6DeniedPrefixes...) {
		if p.Contains(addr) {
			return "in the special-purpose range " + p.String()
		}
	}
	if addr.Is6() && !ssrf.IPv6GlobalUnicast.Contains(addr) {
		return "outside IPv6 global unicast (" + ssrf.IPv6GlobalUnicast.String() + ")"
	}
	return "a special-purpose address"
}
