package dns

import (
	"github.com/miekg/dns"
	"github.com/prometheus/client_golang/prometheus"
)

// The DNS's Prometheus metrics, with the names and labels of CoreDNS's
// metrics plugin (plugin/metrics/vars), so that a dashboard or query
// written for CoreDNS reads kplane's too. The labels:
//
//   - server: the listening address, "dns://127.0.0.1:<port>";
//   - zone: the server block that answered, "." as in kubeadm's Corefile;
//   - view: CoreDNS's view plugin, which kplane does not have: always "";
//   - proto: "udp" or "tcp"; family: "1" (IPv4) or "2" (IPv6);
//   - type: the query type (A, AAAA, SRV, …; rare ones are "other");
//   - rcode: the reply's rcode (NOERROR, NXDOMAIN, …);
//   - plugin: what wrote the reply, "kubernetes" for a name in one of the
//     DNS's zones and "" for a REFUSED or malformed query.
var (
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "coredns", Subsystem: "dns", Name: "requests_total",
		Help: "Counter of DNS requests made per zone, protocol and family.",
	}, []string{"server", "zone", "view", "proto", "family", "type"})
	responsesTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "coredns", Subsystem: "dns", Name: "responses_total",
		Help: "Counter of response status codes.",
	}, []string{"server", "zone", "view", "rcode", "plugin"})
	requestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "coredns", Subsystem: "dns", Name: "request_duration_seconds",
		Help: "Histogram of the time (in seconds) each request took per zone.",
		// CoreDNS's plugin.TimeBuckets: 0.25 ms doubling to 8 s.
		Buckets: prometheus.ExponentialBuckets(0.00025, 2, 16),
	}, []string{"server", "zone", "view", "type"})
)

func init() {
	prometheus.MustRegister(requestsTotal, responsesTotal, requestDuration)
}

// metricsZone is the zone label: kubeadm's Corefile serves every name
// from one server block, ".".
const metricsZone = "."

// queryTypes are the query types counted by name; CoreDNS counts the
// others as "other" so that a scan of odd types cannot grow the metrics
// without bound.
var queryTypes = map[uint16]bool{
	dns.TypeA: true, dns.TypeAAAA: true, dns.TypeSRV: true, dns.TypePTR: true, dns.TypeNS: true,
	dns.TypeSOA: true, dns.TypeTXT: true, dns.TypeCNAME: true, dns.TypeMX: true, dns.TypeANY: true,
	dns.TypeHTTPS: true, dns.TypeSVCB: true, dns.TypeAXFR: true, dns.TypeIXFR: true,
}

// typeLabel is the type label of a query of type qtype.
func typeLabel(qtype uint16) string {
	if queryTypes[qtype] {
		return dns.TypeToString[qtype]
	}
	return "other"
}
