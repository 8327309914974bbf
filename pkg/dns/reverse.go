package dns

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/miekg/dns"
)

// answerReverse answers a name under a reverse zone (in-addr.arpa. or
// ip6.arpa.): PTR for a full address that is a Service's cluster IP or an
// endpoint's address, as CoreDNS's reverse.go does. A full address that
// nothing has, and a partial name (10.in-addr.arpa.), are NXDOMAIN, as
// in CoreDNS; other record types of an address that has a PTR are NODATA.
func (r *Resolver) answerReverse(m *dns.Msg, q dns.Question, name, zone string) {
	if !r.table.Synced() {
		m.Rcode = dns.RcodeServerFailure
		return
	}
	m.Authoritative = true
	if name == zone {
		if q.Qtype == dns.TypeSOA {
			m.Answer = []dns.RR{r.soa(zone)}
		}
		r.finish(m, zone, nil)
		return
	}
	ip, ok := addressFromReverse(name)
	if !ok {
		r.finish(m, zone, errNoItems)
		return
	}
	names := r.table.reverse(ip)
	if len(names) == 0 {
		r.finish(m, zone, errNoItems)
		return
	}
	if q.Qtype == dns.TypePTR {
		for _, target := range names {
			m.Answer = append(m.Answer, &dns.PTR{Hdr: r.header(q.Name, dns.TypePTR), Ptr: target})
		}
	}
	r.finish(m, zone, nil)
}

// addressFromReverse reads the address a reverse name stands for:
// 5.1.244.10.in-addr.arpa. is 10.244.1.5, and an ip6.arpa. name is the
// 32 nibbles of an IPv6 address, lowest first. ok is false for anything
// else, a partial name included.
func addressFromReverse(name string) (netip.Addr, bool) {
	if rest, ok := strings.CutSuffix(name, "."+reverseZoneIPv4); ok {
		labels := strings.Split(rest, ".")
		if len(labels) != 4 {
			return netip.Addr{}, false
		}
		var b [4]byte
		for i, label := range labels {
			n, err := strconv.ParseUint(label, 10, 8)
			if err != nil || (len(label) > 1 && label[0] == '0') {
				return netip.Addr{}, false
			}
			b[3-i] = byte(n)
		}
		return netip.AddrFrom4(b), true
	}
	if rest, ok := strings.CutSuffix(name, "."+reverseZoneIPv6); ok {
		labels := strings.Split(rest, ".")
		if len(labels) != 32 {
			return netip.Addr{}, false
		}
		var b [16]byte
		for i, label := range labels {
			n, err := strconv.ParseUint(label, 16, 4)
			if err != nil || len(label) != 1 {
				return netip.Addr{}, false
			}
			nibble := 31 - i // labels run from the lowest nibble up
			if nibble%2 == 0 {
				b[nibble/2] |= byte(n) << 4
			} else {
				b[nibble/2] |= byte(n)
			}
		}
		return netip.AddrFrom16(b), true
	}
	return netip.Addr{}, false
}
