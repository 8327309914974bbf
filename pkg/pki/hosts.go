package pki

import (
	"net"
	"strings"
)

// DefaultHosts are the names and addresses every apiserver serving
// certificate covers. Besides loopback, they are the names a pod uses for the
// in-cluster API: the `kubernetes` Service in the `default` namespace (in
// every DNS search-path form) and its ClusterIP, the first address of the
// service range 10.96.0.0/12. kubeadm puts the same list in apiserver.crt.
var DefaultHosts = []string{
	"127.0.0.1",
	"::1",
	"localhost",
	"kubernetes",
	"kubernetes.default",
	"kubernetes.default.svc",
	"kubernetes.default.svc.cluster.local",
	"10.96.0.1",
}

// servingHosts returns DefaultHosts followed by extra, lower-cased, without
// blanks or duplicates, in a stable order.
func servingHosts(extra []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range append(append([]string(nil), DefaultHosts...), extra...) {
		h = strings.ToLower(strings.TrimSpace(h))
		if ip := net.ParseIP(h); ip != nil {
			h = ip.String() // one spelling per address, e.g. "::1" for "0:0::1"
		}
		if h == "" || seen[h] {
			continue
		}
		seen[h] = true
		out = append(out, h)
	}
	return out
}

// splitHosts sorts hosts into the two kinds of subject alternative name.
func splitHosts(hosts []string) (dnsNames []string, ips []net.IP) {
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			ips = append(ips, ip)
		} else {
			dnsNames = append(dnsNames, h)
		}
	}
	return dnsNames, ips
}
