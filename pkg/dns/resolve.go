package dns

import (
	"errors"
	"net"
	"net/netip"
	"strings"

	"github.com/miekg/dns"
)

// Defaults, with the upstream values they mirror.
const (
	// DefaultTTL is the TTL of every record, in seconds: CoreDNS's
	// kubernetes plugin's default (its `ttl` option). kubeadm's Corefile
	// sets `ttl 30`; kplane keeps the plugin's own 5 s so that a
	// student sees a change within seconds.
	DefaultTTL = 5
	// dnsSchemaVersion is the TXT answer of dns-version.<zone>: the
	// version of the Kubernetes DNS specification served.
	dnsSchemaVersion = "1.1.0"
	// dnsVersionTTL is that TXT record's TTL (CoreDNS: 28800 s).
	dnsVersionTTL = 28800
	// maxCNAMEChain bounds how far an ExternalName's CNAME is followed
	// inside the zone, as CoreDNS stops after 8 records.
	maxCNAMEChain = 8
)

// The reverse zones the DNS answers PTR queries in, as kubeadm's Corefile
// lists them beside the cluster domain.
const (
	reverseZoneIPv4 = "in-addr.arpa."
	reverseZoneIPv6 = "ip6.arpa."
	localhostZone   = "localhost."
)

// errNoItems says a name does not exist: NXDOMAIN (CoreDNS's errNoItems).
var errNoItems = errors.New("no items found")

// Resolver answers DNS queries from a Table, with the records CoreDNS's
// kubernetes plugin serves. It is safe for concurrent use.
type Resolver struct {
	table *Table
	// serviceIP is the kube-dns Service's cluster IP: the address of
	// ns.dns.<zone>, the zone's name server.
	serviceIP netip.Addr
	// ttl is every record's TTL and the SOA's minimum.
	ttl uint32
}

// NewResolver returns a Resolver reading table. serviceIP is the kube-dns
// Service's cluster IP (10.96.0.10), answered for ns.dns.<zone>; ttl is
// the TTL of every record (DefaultTTL).
func NewResolver(table *Table, serviceIP netip.Addr, ttl uint32) *Resolver {
	return &Resolver{table: table, serviceIP: serviceIP, ttl: ttl}
}

// target is one thing a name resolves to: an address, with the port and
// the target name an SRV record gives it, or the CNAME of an ExternalName
// Service.
type target struct {
	addr netip.Addr
	// port is -1 when there is none (a pod, a slice without ports): the
	// address answers A or AAAA, but makes no SRV record.
	port int32
	// name is the SRV target: service.namespace.svc.zone for a cluster
	// IP, hostname.service.namespace.svc.zone for an endpoint.
	name string
	// cname is set, and addr is not, for an ExternalName Service.
	cname string
}

// Resolve answers the query req. The reply is complete but not yet fitted
// to the client's buffer (Server does that); Resolve never returns nil.
//
// Names under the cluster domain and the reverse zones are answered with
// authority; localhost answers the loopback addresses; everything else is
// REFUSED, since kplane's DNS forwards nothing. Recursion is never
// offered (the RA bit stays clear), for the same reason.
func (r *Resolver) Resolve(req *dns.Msg) *dns.Msg {
	m := new(dns.Msg)
	if len(req.Question) != 1 {
		return m.SetRcodeFormatError(req)
	}
	m.SetReply(req)
	if req.Opcode != dns.OpcodeQuery {
		m.Rcode = dns.RcodeNotImplemented
		return m
	}
	opt := req.IsEdns0()
	if opt != nil {
		defer func() { m.SetEdns0(max(opt.UDPSize(), dns.MinMsgSize), opt.Do()) }()
		if opt.Version() != 0 {
			m.Rcode = dns.RcodeBadVers // RFC 6891: only EDNS version 0 exists
			return m
		}
	}
	q := req.Question[0]
	name := strings.ToLower(dns.Fqdn(q.Name))
	switch {
	case q.Qclass != dns.ClassINET:
		m.Rcode = dns.RcodeRefused
	case q.Qtype == dns.TypeAXFR || q.Qtype == dns.TypeIXFR:
		// Zone transfers are CoreDNS's transfer plugin, which kubeadm's
		// Corefile does not enable; kplane does not offer them either.
		m.Rcode = dns.RcodeRefused
	case dns.IsSubDomain(r.table.zone, name):
		r.answerCluster(m, q, name)
	case dns.IsSubDomain(reverseZoneIPv4, name):
		r.answerReverse(m, q, name, reverseZoneIPv4)
	case dns.IsSubDomain(reverseZoneIPv6, name):
		r.answerReverse(m, q, name, reverseZoneIPv6)
	case dns.IsSubDomain(localhostZone, name):
		r.answerLocalhost(m, q)
	default:
		m.Rcode = dns.RcodeRefused
	}
	return m
}

// answerCluster answers a name under the cluster domain.
func (r *Resolver) answerCluster(m *dns.Msg, q dns.Question, name string) {
	zone := r.table.zone
	if !r.table.Synced() {
		m.Rcode = dns.RcodeServerFailure
		return
	}
	m.Authoritative = true
	switch name {
	case zone:
		switch q.Qtype {
		case dns.TypeSOA:
			m.Answer = []dns.RR{r.soa(zone)}
		case dns.TypeNS:
			ns := "ns.dns." + zone
			m.Answer = []dns.RR{&dns.NS{Hdr: r.header(q.Name, dns.TypeNS), Ns: ns}}
			m.Extra = r.addressRecords(ns, []target{{addr: r.serviceIP}}, dns.TypeA, dns.TypeAAAA)
		}
		r.finish(m, zone, nil)
		return
	case "ns.dns." + zone:
		m.Answer = r.addressRecords(q.Name, []target{{addr: r.serviceIP}}, q.Qtype)
		r.finish(m, zone, nil)
		return
	case "dns-version." + zone:
		if q.Qtype == dns.TypeTXT {
			hdr := r.header(q.Name, dns.TypeTXT)
			hdr.Ttl = dnsVersionTTL
			m.Answer = []dns.RR{&dns.TXT{Hdr: hdr, Txt: []string{dnsSchemaVersion}}}
		}
		r.finish(m, zone, nil)
		return
	}
	targets, err := r.lookup(name)
	if err == nil {
		m.Answer, m.Extra = r.records(q, targets, 0)
	}
	r.finish(m, zone, err)
}

// finish turns an empty answer into NODATA and a lookup error into
// NXDOMAIN, both with the zone's SOA in the authority section, so that
// resolvers cache the negative answer for the SOA's minimum TTL.
func (r *Resolver) finish(m *dns.Msg, zone string, err error) {
	if err != nil {
		m.Rcode = dns.RcodeNameError
		m.Answer, m.Extra = nil, nil
	}
	if len(m.Answer) == 0 {
		m.Ns = []dns.RR{r.soa(zone)}
	}
}

// lookup resolves a name under the cluster domain to its targets. No
// targets and no error is a name that exists without records (the apex,
// svc.zone, a namespace); errNoItems is a name that does not exist.
func (r *Resolver) lookup(name string) ([]target, error) {
	q, err := parseName(name, r.table.zone)
	if err != nil {
		return nil, errNoItems
	}
	if q.kind == "" {
		return nil, nil
	}
	if !r.table.namespaceExists(q.namespace) {
		return nil, errNoItems
	}
	if q.service == "" {
		return nil, nil
	}
	if q.kind == kindPod {
		return podTargets(q.service)
	}
	v := r.table.service(q.namespace, q.service)
	if v == nil {
		return nil, errNoItems
	}
	return r.serviceTargets(v, q)
}

// podTargets answers pod-ip.namespace.pod.zone: CoreDNS's `pods insecure`
// mode (kubeadm's default) gives any well-formed dashed IP its address,
// without checking that a pod has it.
func podTargets(dashed string) ([]target, error) {
	var s string
	if strings.Count(dashed, "-") == 3 && !strings.Contains(dashed, "--") {
		s = strings.ReplaceAll(dashed, "-", ".")
	} else {
		s = strings.ReplaceAll(dashed, "-", ":")
	}
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return nil, errNoItems
	}
	return []target{{addr: ip.Unmap(), port: -1}}, nil
}

// serviceTargets resolves a name of Service v, as CoreDNS's findServices
// does: an ExternalName Service is its CNAME; a headless Service, or a
// query for one endpoint of any Service, is the endpoints that match the
// query's hostname and port; a ClusterIP Service is its cluster IPs, once
// per matching port. Nothing matching is NXDOMAIN.
func (r *Resolver) serviceTargets(v *serviceView, q query) ([]target, error) {
	var targets []target
	switch {
	case v.external:
		// An ExternalName that is an IP address makes no CNAME (CoreDNS
		// answers only names), and an external Service has no endpoints.
		if q.endpoint != "" || v.externalName == "" || net.ParseIP(strings.TrimSuffix(v.externalName, ".")) != nil {
			return nil, errNoItems
		}
		return []target{{cname: v.externalName, port: -1}}, nil
	case v.headless || q.endpoint != "":
		for _, e := range v.endpoints {
			if q.endpoint != "" && !strings.EqualFold(q.endpoint, e.hostname) {
				continue
			}
			for _, p := range e.ports {
				if q.matchPort(p.name, p.protocol) {
					targets = append(targets, target{addr: e.ip, port: p.port, name: e.hostname + "." + v.fqdn(r.table.zone)})
				}
			}
		}
		if len(targets) == 0 {
			return nil, errNoItems
		}
	default:
		matched := false
		for _, p := range v.ports {
			if !q.matchPort(p.name, p.protocol) {
				continue
			}
			matched = true
			for _, ip := range v.clusterIPs {
				targets = append(targets, target{addr: ip, port: p.port, name: v.fqdn(r.table.zone)})
			}
		}
		if !matched {
			return nil, errNoItems
		}
	}
	return targets, nil
}

// records builds the answer and additional sections of query q from
// targets. depth counts the CNAMEs followed so far.
func (r *Resolver) records(q dns.Question, targets []target, depth int) (answer, extra []dns.RR) {
	switch q.Qtype {
	case dns.TypeA, dns.TypeAAAA:
		for _, t := range targets {
			if t.cname != "" {
				answer = append(answer, r.followCNAME(q, t.cname, depth)...)
			}
		}
		answer = append(answer, r.addressRecords(q.Name, targets, q.Qtype)...)
	case dns.TypeCNAME:
		for _, t := range targets {
			if t.cname != "" {
				answer = append(answer, &dns.CNAME{Hdr: r.header(q.Name, dns.TypeCNAME), Target: t.cname})
				break
			}
		}
	case dns.TypeSRV:
		answer, extra = r.srvRecords(q.Name, targets)
	}
	return answer, extra
}

// followCNAME answers an ExternalName's CNAME for an A or AAAA query. A
// target inside the cluster domain is resolved here, as CoreDNS does, and
// the CNAME is given only if it leads somewhere. A target outside it is
// given as the CNAME alone: CoreDNS would ask its upstream resolver for
// the target's addresses, but kplane forwards nothing, so the client's
// resolver follows the CNAME itself (and gets REFUSED from us).
func (r *Resolver) followCNAME(q dns.Question, cname string, depth int) []dns.RR {
	record := &dns.CNAME{Hdr: r.header(q.Name, dns.TypeCNAME), Target: cname}
	if !dns.IsSubDomain(r.table.zone, cname) {
		return []dns.RR{record}
	}
	if depth >= maxCNAMEChain || strings.EqualFold(cname, q.Name) {
		return nil
	}
	targets, err := r.lookup(cname)
	if err != nil {
		return nil
	}
	next, _ := r.records(dns.Question{Name: cname, Qtype: q.Qtype, Qclass: q.Qclass}, targets, depth+1)
	if len(next) == 0 {
		return nil
	}
	return append([]dns.RR{record}, next...)
}

// addressRecords returns an A or AAAA record named owner for every
// distinct address of targets whose record type is among types (none for
// types other than A and AAAA).
func (r *Resolver) addressRecords(owner string, targets []target, types ...uint16) []dns.RR {
	var records []dns.RR
	seen := map[netip.Addr]bool{}
	for _, t := range targets {
		if !t.addr.IsValid() || seen[t.addr] {
			continue
		}
		if rr := r.addressRecord(owner, t.addr, types...); rr != nil {
			seen[t.addr] = true
			records = append(records, rr)
		}
	}
	return records
}

// addressRecord is the A (IPv4) or AAAA (IPv6) record of ip named owner,
// or nil when ip's record type is not among types.
func (r *Resolver) addressRecord(owner string, ip netip.Addr, types ...uint16) dns.RR {
	for _, t := range types {
		switch {
		case t == dns.TypeA && ip.Is4():
			return &dns.A{Hdr: r.header(owner, dns.TypeA), A: net.IP(ip.AsSlice())}
		case t == dns.TypeAAAA && ip.Is6():
			return &dns.AAAA{Hdr: r.header(owner, dns.TypeAAAA), AAAA: net.IP(ip.AsSlice())}
		}
	}
	return nil
}

// srvRecords answers SRV: one record per distinct target name and port,
// priority 0, the weight 100 shared evenly among every target (CoreDNS's
// rounding down, at least 1), and the targets' addresses in the
// additional section so that the client needs no second query. Targets
// without a port (-1) count toward the share but make no record, and
// CNAMEs make none at all, as in CoreDNS.
func (r *Resolver) srvRecords(owner string, targets []target) (answer, extra []dns.RR) {
	n := 0
	for _, t := range targets {
		if t.cname == "" {
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	weight := uint16(max(100/n, 1))
	type srvKey struct {
		name string
		port int32
	}
	type addrKey struct {
		name string
		addr netip.Addr
	}
	seenSRV, seenAddr := map[srvKey]bool{}, map[addrKey]bool{}
	for _, t := range targets {
		if t.cname != "" || t.port < 0 {
			continue
		}
		if k := (srvKey{t.name, t.port}); !seenSRV[k] {
			seenSRV[k] = true
			answer = append(answer, &dns.SRV{Hdr: r.header(owner, dns.TypeSRV), Priority: 0, Weight: weight, Port: uint16(t.port), Target: t.name})
		}
		if k := (addrKey{t.name, t.addr}); !seenAddr[k] {
			seenAddr[k] = true
			extra = append(extra, r.addressRecord(t.name, t.addr, dns.TypeA, dns.TypeAAAA))
		}
	}
	return answer, extra
}

// header is the header of a record named owner of type rrtype, class IN,
// with the resolver's TTL.
func (r *Resolver) header(owner string, rrtype uint16) dns.RR_Header {
	return dns.RR_Header{Name: owner, Rrtype: rrtype, Class: dns.ClassINET, Ttl: r.ttl}
}

// soa is zone's SOA record as CoreDNS's plugin.SOA builds it: name server
// ns.dns.<zone>, mailbox hostmaster.<zone>, the table's serial, refresh
// 2 h, retry 30 min, expire 1 day, and the records' TTL as the minimum
// (how long a resolver caches NXDOMAIN and NODATA) and, up to 300 s, as
// its own TTL.
func (r *Resolver) soa(zone string) dns.RR {
	hdr := r.header(zone, dns.TypeSOA)
	hdr.Ttl = min(r.ttl, 300)
	return &dns.SOA{
		Hdr: hdr, Ns: "ns.dns." + zone, Mbox: "hostmaster." + zone,
		Serial: r.table.Serial(), Refresh: 7200, Retry: 1800, Expire: 86400, Minttl: r.ttl,
	}
}

// answerLocalhost answers localhost. and the names under it with the
// loopback addresses, as RFC 6761 asks of name servers; a pod's
// /etc/hosts answers localhost before any query is sent, so this is for
// a resolver that asks anyway.
func (r *Resolver) answerLocalhost(m *dns.Msg, q dns.Question) {
	m.Authoritative = true
	loopback := []target{{addr: netip.MustParseAddr("127.0.0.1")}, {addr: netip.IPv6Loopback()}}
	m.Answer = r.addressRecords(q.Name, loopback, q.Qtype)
}
