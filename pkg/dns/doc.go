// Package dns is kplane's cluster DNS: what CoreDNS's kubernetes plugin is
// in a real cluster. It answers names under the cluster domain
// (cluster.local) from the Services, EndpointSlices and Namespaces it
// follows through kplane's informers, on a loopback UDP and TCP port, with
// github.com/miekg/dns (the library CoreDNS is built on).
//
// The mechanism, in the order a query meets it:
//
//   - Table (table.go) is the lookup table. Informer events change one
//     Service's entry at a time: the Service and its EndpointSlices are
//     turned into an immutable serviceView (view.go) — cluster IPs, ports,
//     the ready endpoints with their DNS hostnames — and the reverse index
//     (IP → names, for PTR) is patched for that Service only. Reads take a
//     read lock just long enough to fetch a view, so thousands of queries a
//     second never wait for each other.
//   - parseName (name.go) splits a name under the zone the way CoreDNS's
//     parse.go does: [_port._proto.|endpoint.]service.namespace.svc.zone,
//     or pod-ip.namespace.pod.zone.
//   - Resolver (resolve.go) turns a query into a reply: A/AAAA, SRV with
//     the targets' addresses in the additional section, CNAME for
//     ExternalName Services, PTR (reverse.go), the zone's SOA and NS, and
//     NXDOMAIN or NODATA (NOERROR, no answer, the SOA in the authority
//     section) exactly where CoreDNS gives them.
//   - Server (server.go) serves the Resolver on UDP and TCP, fits each
//     reply to the client's buffer (EDNS0, the TC bit) and counts every
//     query in CoreDNS's metrics (metrics.go).
//   - ZoneRecords (zone.go) lists every record served, by asking the
//     Resolver each name the Table knows: the debug API's zone listing.
//   - DNS (run.go) is the component cmd/dns runs: informers feeding the
//     Table, the kube-dns Service ensured in kube-system (kubedns.go), the
//     DNS server, and the health, metrics and debug server.
//
// kplane's DNS is authoritative for the cluster domain, in-addr.arpa and
// ip6.arpa only: it forwards nothing to the internet (CoreDNS's forward
// plugin has no counterpart), so other names are REFUSED, except
// localhost, which answers the loopback addresses (RFC 6761).
//
// The upstream files this package mirrors are CoreDNS's
// plugin/kubernetes/{kubernetes.go,parse.go,reverse.go,ns.go,handler.go}
// and plugin/backend_lookup.go; the record rules are the Kubernetes DNS
// specification (kubernetes/dns docs/specification.md). See docs/dns.md.
package dns
