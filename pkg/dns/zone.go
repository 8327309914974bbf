package dns

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/miekg/dns"
)

// This file lists the whole zone, as a zone transfer would: every name
// the table gives records, asked of the Resolver itself, so that the
// listing is exactly what queries answer. It is the debug API's
// PathZone, a student's view of what the DNS knows.

// ZoneRecords returns every record of the cluster domain and of the
// reverse zones in zone-file form, one per line: the SOA and NS of the
// apex, then for each Service (by namespace and name) its A, AAAA, CNAME
// and SRV records, each endpoint's and each named port's, and last the
// PTR records of every address.
func (r *Resolver) ZoneRecords() []string {
	zone := r.table.zone
	lines := r.ask(zone, dns.TypeSOA, dns.TypeNS)
	r.table.mu.RLock()
	views := make([]*serviceView, 0, len(r.table.views))
	for _, v := range r.table.views {
		if v.exists {
			views = append(views, v)
		}
	}
	var addresses []netip.Addr
	for ip := range r.table.clusterIPOwners {
		addresses = append(addresses, ip)
	}
	for ip := range r.table.endpointNames {
		if _, ok := r.table.clusterIPOwners[ip]; !ok {
			addresses = append(addresses, ip)
		}
	}
	r.table.mu.RUnlock()

	slices.SortFunc(views, func(a, b *serviceView) int {
		return strings.Compare(a.namespace+"/"+a.name, b.namespace+"/"+b.name)
	})
	for _, v := range views {
		name := v.fqdn(zone)
		lines = append(lines, r.ask(name, dns.TypeA, dns.TypeAAAA, dns.TypeCNAME, dns.TypeSRV)...)
		seen := map[string]bool{}
		for _, e := range v.endpoints {
			if !seen[e.hostname] {
				seen[e.hostname] = true
				lines = append(lines, r.ask(e.hostname+"."+name, dns.TypeA, dns.TypeAAAA)...)
			}
		}
		for _, p := range v.ports {
			if p.name != "" {
				lines = append(lines, r.ask("_"+strings.ToLower(p.name)+"._"+strings.ToLower(p.protocol)+"."+name, dns.TypeSRV)...)
			}
		}
	}
	slices.SortFunc(addresses, netip.Addr.Compare)
	for _, address := range addresses {
		if reverse, err := dns.ReverseAddr(address.String()); err == nil {
			lines = append(lines, r.ask(reverse, dns.TypePTR)...)
		}
	}
	return lines
}

// ask resolves name for each of types and returns the answers'
// records, without duplicates of a record already listed for an earlier
// type (a CNAME answers both A and CNAME).
func (r *Resolver) ask(name string, types ...uint16) []string {
	var lines []string
	seen := map[string]bool{}
	for _, qtype := range types {
		reply := r.Resolve(new(dns.Msg).SetQuestion(name, qtype))
		for _, rr := range reply.Answer {
			line := rr.String()
			if !seen[line] {
				seen[line] = true
				lines = append(lines, line)
			}
		}
	}
	return lines
}
