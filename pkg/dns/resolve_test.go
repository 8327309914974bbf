package dns

import (
	"net/netip"
	"testing"

	"github.com/miekg/dns"

	"kplane/pkg/api"
)

// TestResolveRecords checks every kind of record against the fixtures:
// the answer, additional and authority sections exactly, and the rcode.
func TestResolveRecords(t *testing.T) {
	_, r := newFixture(t)
	inAddrSOA := "in-addr.arpa. 5 IN SOA ns.dns.in-addr.arpa. hostmaster.in-addr.arpa. 1700000000 7200 1800 86400 5"
	tests := []struct {
		name                     string
		qname                    string
		qtype                    uint16
		rcode                    int
		answer, extra, authority []string
	}{{
		name: "a ClusterIP Service is its cluster IP", qname: "web.default.svc.cluster.local.", qtype: dns.TypeA,
		answer: []string{"web.default.svc.cluster.local. 5 IN A 10.96.0.20"},
	}, {
		name: "AAAA of an IPv4-only Service is NODATA", qname: "web.default.svc.cluster.local.", qtype: dns.TypeAAAA,
		authority: []string{clusterSOA},
	}, {
		name: "MX of a Service is NODATA", qname: "web.default.svc.cluster.local.", qtype: dns.TypeMX,
		authority: []string{clusterSOA},
	}, {
		name: "a headless Service is its ready endpoints", qname: "nginx-ss.default.svc.cluster.local.", qtype: dns.TypeA,
		answer: []string{"nginx-ss.default.svc.cluster.local. 5 IN A 10.244.1.7", "nginx-ss.default.svc.cluster.local. 5 IN A 10.244.2.8"},
	}, {
		name: "an endpoint by its hostname (the StatefulSet's pod)", qname: "nginx-ss-1.nginx-ss.default.svc.cluster.local.", qtype: dns.TypeA,
		answer: []string{"nginx-ss-1.nginx-ss.default.svc.cluster.local. 5 IN A 10.244.2.8"},
	}, {
		name: "a not-ready endpoint's hostname is NXDOMAIN", qname: "nginx-ss-2.nginx-ss.default.svc.cluster.local.", qtype: dns.TypeA,
		rcode: dns.RcodeNameError, authority: []string{clusterSOA},
	}, {
		name: "an endpoint with a hostname has no dashed-IP name", qname: "10-244-1-7.nginx-ss.default.svc.cluster.local.", qtype: dns.TypeA,
		rcode: dns.RcodeNameError, authority: []string{clusterSOA},
	}, {
		name: "an endpoint without a hostname by its dashed IP", qname: "10-244-2-10.plain.default.svc.cluster.local.", qtype: dns.TypeA,
		answer: []string{"10-244-2-10.plain.default.svc.cluster.local. 5 IN A 10.244.2.10"},
	}, {
		name: "an endpoint of a ClusterIP Service by its dashed IP", qname: "10-244-1-5.web.default.svc.cluster.local.", qtype: dns.TypeA,
		answer: []string{"10-244-1-5.web.default.svc.cluster.local. 5 IN A 10.244.1.5"},
	}, {
		name: "SRV of a ClusterIP Service's named port targets the Service", qname: "_http._tcp.web.default.svc.cluster.local.", qtype: dns.TypeSRV,
		answer: []string{"_http._tcp.web.default.svc.cluster.local. 5 IN SRV 0 100 80 web.default.svc.cluster.local."},
		extra:  []string{"web.default.svc.cluster.local. 5 IN A 10.96.0.20"},
	}, {
		name: "SRV of a Service name lists every port, the weight shared", qname: "web.default.svc.cluster.local.", qtype: dns.TypeSRV,
		answer: []string{"web.default.svc.cluster.local. 5 IN SRV 0 50 80 web.default.svc.cluster.local.", "web.default.svc.cluster.local. 5 IN SRV 0 50 9090 web.default.svc.cluster.local."},
		extra:  []string{"web.default.svc.cluster.local. 5 IN A 10.96.0.20"},
	}, {
		name: "SRV of a headless Service's named port targets each endpoint", qname: "_web._tcp.nginx-ss.default.svc.cluster.local.", qtype: dns.TypeSRV,
		answer: []string{"_web._tcp.nginx-ss.default.svc.cluster.local. 5 IN SRV 0 50 80 nginx-ss-0.nginx-ss.default.svc.cluster.local.",
			"_web._tcp.nginx-ss.default.svc.cluster.local. 5 IN SRV 0 50 80 nginx-ss-1.nginx-ss.default.svc.cluster.local."},
		extra: []string{"nginx-ss-0.nginx-ss.default.svc.cluster.local. 5 IN A 10.244.1.7", "nginx-ss-1.nginx-ss.default.svc.cluster.local. 5 IN A 10.244.2.8"},
	}, {
		name: "SRV protocol compares without case; UDP does not match TCP", qname: "_web._udp.nginx-ss.default.svc.cluster.local.", qtype: dns.TypeSRV,
		rcode: dns.RcodeNameError, authority: []string{clusterSOA},
	}, {
		name: "SRV of an unknown port name is NXDOMAIN", qname: "_https._tcp.web.default.svc.cluster.local.", qtype: dns.TypeSRV,
		rcode: dns.RcodeNameError, authority: []string{clusterSOA},
	}, {
		name: "SRV of kube-dns's UDP port", qname: "_dns._udp.kube-dns.kube-system.svc.cluster.local.", qtype: dns.TypeSRV,
		answer: []string{"_dns._udp.kube-dns.kube-system.svc.cluster.local. 5 IN SRV 0 100 53 kube-dns.kube-system.svc.cluster.local."},
		extra:  []string{"kube-dns.kube-system.svc.cluster.local. 5 IN A 10.96.0.10"},
	}, {
		name: "PTR of a cluster IP names the Service", qname: "20.0.96.10.in-addr.arpa.", qtype: dns.TypePTR,
		answer: []string{"20.0.96.10.in-addr.arpa. 5 IN PTR web.default.svc.cluster.local."},
	}, {
		name: "PTR of an endpoint names it under its Service", qname: "7.1.244.10.in-addr.arpa.", qtype: dns.TypePTR,
		answer: []string{"7.1.244.10.in-addr.arpa. 5 IN PTR nginx-ss-0.nginx-ss.default.svc.cluster.local."},
	}, {
		name: "PTR of an endpoint without a hostname uses its dashed IP", qname: "10.2.244.10.in-addr.arpa.", qtype: dns.TypePTR,
		answer: []string{"10.2.244.10.in-addr.arpa. 5 IN PTR 10-244-2-10.plain.default.svc.cluster.local."},
	}, {
		name: "PTR of an unknown address is NXDOMAIN", qname: "99.99.244.10.in-addr.arpa.", qtype: dns.TypePTR,
		rcode: dns.RcodeNameError, authority: []string{inAddrSOA},
	}, {
		name: "a partial reverse name is NXDOMAIN", qname: "244.10.in-addr.arpa.", qtype: dns.TypePTR,
		rcode: dns.RcodeNameError, authority: []string{inAddrSOA},
	}, {
		name: "a pod by its dashed IP (pods insecure)", qname: "10-244-1-5.default.pod.cluster.local.", qtype: dns.TypeA,
		answer: []string{"10-244-1-5.default.pod.cluster.local. 5 IN A 10.244.1.5"},
	}, {
		name: "a pod name that is no IP is NXDOMAIN", qname: "web-0.default.pod.cluster.local.", qtype: dns.TypeA,
		rcode: dns.RcodeNameError, authority: []string{clusterSOA},
	}, {
		name: "a pod in a namespace that does not exist is NXDOMAIN", qname: "10-244-1-5.nowhere.pod.cluster.local.", qtype: dns.TypeA,
		rcode: dns.RcodeNameError, authority: []string{clusterSOA},
	}, {
		name: "an unknown Service is NXDOMAIN", qname: "nope.default.svc.cluster.local.", qtype: dns.TypeA,
		rcode: dns.RcodeNameError, authority: []string{clusterSOA},
	}, {
		name: "a Service in a namespace that does not exist is NXDOMAIN", qname: "web.nowhere.svc.cluster.local.", qtype: dns.TypeA,
		rcode: dns.RcodeNameError, authority: []string{clusterSOA},
	}, {
		name: "a namespace is a name without records", qname: "default.svc.cluster.local.", qtype: dns.TypeA,
		authority: []string{clusterSOA},
	}, {
		name: "svc.<zone> is a name without records", qname: "svc.cluster.local.", qtype: dns.TypeA,
		authority: []string{clusterSOA},
	}, {
		name: "a name outside the schema is NXDOMAIN", qname: "foo.cluster.local.", qtype: dns.TypeA,
		rcode: dns.RcodeNameError, authority: []string{clusterSOA},
	}, {
		name: "too many labels is NXDOMAIN", qname: "a.b.c.web.default.svc.cluster.local.", qtype: dns.TypeA,
		rcode: dns.RcodeNameError, authority: []string{clusterSOA},
	}, {
		name: "the zone's SOA", qname: "cluster.local.", qtype: dns.TypeSOA,
		answer: []string{clusterSOA},
	}, {
		name: "the zone's NS is ns.dns with kube-dns's cluster IP", qname: "cluster.local.", qtype: dns.TypeNS,
		answer: []string{"cluster.local. 5 IN NS ns.dns.cluster.local."},
		extra:  []string{"ns.dns.cluster.local. 5 IN A 10.96.0.10"},
	}, {
		name: "A of the apex is NODATA", qname: "cluster.local.", qtype: dns.TypeA,
		authority: []string{clusterSOA},
	}, {
		name: "the name server's address", qname: "ns.dns.cluster.local.", qtype: dns.TypeA,
		answer: []string{"ns.dns.cluster.local. 5 IN A 10.96.0.10"},
	}, {
		name: "the schema version", qname: "dns-version.cluster.local.", qtype: dns.TypeTXT,
		answer: []string{`dns-version.cluster.local. 28800 IN TXT "1.1.0"`},
	}, {
		name: "a name outside the cluster is REFUSED", qname: "example.com.", qtype: dns.TypeA,
		rcode: dns.RcodeRefused,
	}, {
		name: "a zone transfer is REFUSED", qname: "cluster.local.", qtype: dns.TypeAXFR,
		rcode: dns.RcodeRefused,
	}, {
		name: "localhost is the loopback address", qname: "localhost.", qtype: dns.TypeA,
		answer: []string{"localhost. 5 IN A 127.0.0.1"},
	}, {
		name: "localhost over IPv6", qname: "localhost.", qtype: dns.TypeAAAA,
		answer: []string{"localhost. 5 IN AAAA ::1"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := ask(r, tt.qname, tt.qtype)
			expect(t, reply, tt.rcode, tt.answer, tt.extra, tt.authority)
			inZone := tt.rcode != dns.RcodeRefused
			if reply.Authoritative != inZone {
				t.Errorf("authoritative %v, want %v", reply.Authoritative, inZone)
			}
			if reply.RecursionAvailable {
				t.Errorf("RA set: kplane's DNS offers no recursion")
			}
		})
	}
}

// TestResolveKeepsTheQuestionsCase answers with the owner name as asked,
// matching Services without regard to case.
func TestResolveKeepsTheQuestionsCase(t *testing.T) {
	_, r := newFixture(t)
	expect(t, ask(r, "Web.Default.SVC.cluster.local.", dns.TypeA), dns.RcodeSuccess,
		[]string{"Web.Default.SVC.cluster.local. 5 IN A 10.96.0.20"}, nil, nil)
}

// TestResolveDualStack answers each family of a dual-stack Service and
// of an IPv6 endpoint, and PTR in ip6.arpa.
func TestResolveDualStack(t *testing.T) {
	table, r := newFixture(t)
	table.SetService(clusterIPService("default", "dual", []string{"10.96.0.30", "fd00:10:96::30"}, port("http", 80)))
	table.SetService(headlessService("default", "six", port("http", 80)))
	table.SetEndpointSlice(slice("default", "six", "six-abcde", api.AddressTypeIPv6, []api.ServicePort{port("http", 80)},
		endpoint{ip: "fd00:10:244:1::5", ready: true}))

	expect(t, ask(r, "dual.default.svc.cluster.local.", dns.TypeA), dns.RcodeSuccess,
		[]string{"dual.default.svc.cluster.local. 5 IN A 10.96.0.30"}, nil, nil)
	expect(t, ask(r, "dual.default.svc.cluster.local.", dns.TypeAAAA), dns.RcodeSuccess,
		[]string{"dual.default.svc.cluster.local. 5 IN AAAA fd00:10:96::30"}, nil, nil)
	// One SRV record for the port (the same target twice is one), both
	// addresses in the additional section; two targets share the weight.
	expect(t, ask(r, "_http._tcp.dual.default.svc.cluster.local.", dns.TypeSRV), dns.RcodeSuccess,
		[]string{"_http._tcp.dual.default.svc.cluster.local. 5 IN SRV 0 50 80 dual.default.svc.cluster.local."},
		[]string{"dual.default.svc.cluster.local. 5 IN A 10.96.0.30", "dual.default.svc.cluster.local. 5 IN AAAA fd00:10:96::30"}, nil)
	expect(t, ask(r, "fd00-10-244-1--5.six.default.svc.cluster.local.", dns.TypeAAAA), dns.RcodeSuccess,
		[]string{"fd00-10-244-1--5.six.default.svc.cluster.local. 5 IN AAAA fd00:10:244:1::5"}, nil, nil)
	reverse, err := dns.ReverseAddr("fd00:10:244:1::5")
	if err != nil {
		t.Fatal(err)
	}
	expect(t, ask(r, reverse, dns.TypePTR), dns.RcodeSuccess,
		[]string{reverse + " 5 IN PTR fd00-10-244-1--5.six.default.svc.cluster.local."}, nil, nil)
	expect(t, ask(r, "fd00-10-244-1--5.default.pod.cluster.local.", dns.TypeAAAA), dns.RcodeSuccess,
		[]string{"fd00-10-244-1--5.default.pod.cluster.local. 5 IN AAAA fd00:10:244:1::5"}, nil, nil)
}

// TestResolveExternalName answers an ExternalName Service with its
// CNAME, follows a target inside the cluster domain, and leaves one
// outside it to the client.
func TestResolveExternalName(t *testing.T) {
	table, r := newFixture(t)
	table.SetService(externalService("default", "search", "www.example.com"))
	table.SetService(externalService("default", "alias", "web.default.svc.cluster.local"))
	table.SetService(externalService("default", "byip", "192.0.2.1"))

	expect(t, ask(r, "search.default.svc.cluster.local.", dns.TypeA), dns.RcodeSuccess,
		[]string{"search.default.svc.cluster.local. 5 IN CNAME www.example.com."}, nil, nil)
	expect(t, ask(r, "search.default.svc.cluster.local.", dns.TypeCNAME), dns.RcodeSuccess,
		[]string{"search.default.svc.cluster.local. 5 IN CNAME www.example.com."}, nil, nil)
	expect(t, ask(r, "alias.default.svc.cluster.local.", dns.TypeA), dns.RcodeSuccess,
		[]string{"alias.default.svc.cluster.local. 5 IN CNAME web.default.svc.cluster.local.", "web.default.svc.cluster.local. 5 IN A 10.96.0.20"}, nil, nil)
	// SRV of an ExternalName is NODATA (CoreDNS drops external targets).
	expect(t, ask(r, "search.default.svc.cluster.local.", dns.TypeSRV), dns.RcodeSuccess, nil, nil, []string{clusterSOA})
	// An external Service has no endpoints, and an IP is no CNAME target.
	expect(t, ask(r, "x.search.default.svc.cluster.local.", dns.TypeA), dns.RcodeNameError, nil, nil, []string{clusterSOA})
	expect(t, ask(r, "byip.default.svc.cluster.local.", dns.TypeA), dns.RcodeNameError, nil, nil, []string{clusterSOA})
	// The following stops at a loop.
	table.SetService(externalService("default", "loop", "loop.default.svc.cluster.local"))
	expect(t, ask(r, "loop.default.svc.cluster.local.", dns.TypeA), dns.RcodeSuccess, nil, nil, []string{clusterSOA})
}

// TestResolvePublishNotReadyAddresses lists not-ready endpoints of a
// Service that publishes them.
func TestResolvePublishNotReadyAddresses(t *testing.T) {
	table, r := newFixture(t)
	svc := headlessService("default", "nginx-ss", port("web", 80))
	svc.Spec.PublishNotReadyAddresses = true
	table.SetService(svc)
	expect(t, ask(r, "nginx-ss-2.nginx-ss.default.svc.cluster.local.", dns.TypeA), dns.RcodeSuccess,
		[]string{"nginx-ss-2.nginx-ss.default.svc.cluster.local. 5 IN A 10.244.1.9"}, nil, nil)
	if got := len(ask(r, "nginx-ss.default.svc.cluster.local.", dns.TypeA).Answer); got != 3 {
		t.Errorf("%d addresses for the Service, want all 3", got)
	}
}

// TestResolveFollowsTableChanges: an endpoint turning unready, a slice
// arriving before its Service, and deletes all show in the next answer,
// PTR included.
func TestResolveFollowsTableChanges(t *testing.T) {
	table, r := newFixture(t)
	table.SetEndpointSlice(slice("default", "nginx-ss", "nginx-ss-xyz12", api.AddressTypeIPv4, []api.ServicePort{port("web", 80)},
		endpoint{ip: "10.244.1.7", hostname: "nginx-ss-0", ready: true},
		endpoint{ip: "10.244.2.8", hostname: "nginx-ss-1", ready: false}))
	expect(t, ask(r, "nginx-ss.default.svc.cluster.local.", dns.TypeA), dns.RcodeSuccess,
		[]string{"nginx-ss.default.svc.cluster.local. 5 IN A 10.244.1.7"}, nil, nil)
	expect(t, ask(r, "8.2.244.10.in-addr.arpa.", dns.TypePTR), dns.RcodeNameError, nil, nil,
		[]string{"in-addr.arpa. 5 IN SOA ns.dns.in-addr.arpa. hostmaster.in-addr.arpa. 1700000000 7200 1800 86400 5"})

	// A slice before its Service: nothing resolves until the Service.
	table.SetEndpointSlice(slice("default", "late", "late-abcde", api.AddressTypeIPv4, []api.ServicePort{port("http", 80)},
		endpoint{ip: "10.244.1.20", ready: true}))
	expect(t, ask(r, "late.default.svc.cluster.local.", dns.TypeA), dns.RcodeNameError, nil, nil, []string{clusterSOA})
	if got := ask(r, "20.1.244.10.in-addr.arpa.", dns.TypePTR).Rcode; got != dns.RcodeNameError {
		t.Errorf("PTR of a Service not yet known: %s, want NXDOMAIN", dns.RcodeToString[got])
	}
	table.SetService(headlessService("default", "late", port("http", 80)))
	expect(t, ask(r, "late.default.svc.cluster.local.", dns.TypeA), dns.RcodeSuccess,
		[]string{"late.default.svc.cluster.local. 5 IN A 10.244.1.20"}, nil, nil)

	// Deleting the Service takes its names and PTRs; deleting the
	// slice of another leaves a headless Service without addresses,
	// which is NXDOMAIN as in CoreDNS.
	table.DeleteService("default", "web")
	expect(t, ask(r, "web.default.svc.cluster.local.", dns.TypeA), dns.RcodeNameError, nil, nil, []string{clusterSOA})
	if got := ask(r, "20.0.96.10.in-addr.arpa.", dns.TypePTR).Rcode; got != dns.RcodeNameError {
		t.Errorf("PTR of a deleted Service's cluster IP: %s, want NXDOMAIN", dns.RcodeToString[got])
	}
	table.DeleteEndpointSlice("default", "late-abcde")
	expect(t, ask(r, "late.default.svc.cluster.local.", dns.TypeA), dns.RcodeNameError, nil, nil, []string{clusterSOA})

	// A slice that moves to another Service leaves the first.
	moved := slice("default", "plain", "plain-q7x2k", api.AddressTypeIPv4, nil, endpoint{ip: "10.244.2.10", ready: true})
	moved.Labels[api.LabelServiceName] = "other"
	table.SetEndpointSlice(moved)
	table.SetService(headlessService("default", "other"))
	if got := ask(r, "plain.default.svc.cluster.local.", dns.TypeA).Rcode; got != dns.RcodeNameError {
		t.Errorf("the Service the slice left: %s, want NXDOMAIN", dns.RcodeToString[got])
	}
	if names := table.reverse(netip.MustParseAddr("10.244.2.10")); len(names) != 1 || names[0] != "10-244-2-10.other.default.svc.cluster.local." {
		t.Errorf("reverse names after the move: %q", names)
	}
	// nginx-ss, plain, late, other and kube-dns; nginx-ss-0 and other's endpoint.
	if c := table.Counts(); c.Services != 5 || c.Endpoints != 2 {
		t.Errorf("counts %+v, want 5 Services and 2 endpoints", c)
	}

	table.DeleteNamespace("default")
	expect(t, ask(r, "default.svc.cluster.local.", dns.TypeA), dns.RcodeNameError, nil, nil, []string{clusterSOA})
	expect(t, ask(r, "other.default.svc.cluster.local.", dns.TypeA), dns.RcodeNameError, nil, nil, []string{clusterSOA})
}

// TestResolveBeforeSync answers SERVFAIL inside the zone until the
// informers have synced: a NXDOMAIN then could be wrong.
func TestResolveBeforeSync(t *testing.T) {
	table := NewTable("cluster.local", nil)
	r := NewResolver(table, netip.MustParseAddr("10.96.0.10"), DefaultTTL)
	if got := ask(r, "web.default.svc.cluster.local.", dns.TypeA).Rcode; got != dns.RcodeServerFailure {
		t.Errorf("before sync: %s, want SERVFAIL", dns.RcodeToString[got])
	}
	table.MarkSynced()
	if got := ask(r, "web.default.svc.cluster.local.", dns.TypeA).Rcode; got != dns.RcodeNameError {
		t.Errorf("after sync: %s, want NXDOMAIN", dns.RcodeToString[got])
	}
}

// TestResolveMessageErrors: what is not one standard query gets the
// rcode RFC 1035 and RFC 6891 give it.
func TestResolveMessageErrors(t *testing.T) {
	_, r := newFixture(t)

	none := new(dns.Msg)
	none.Id = 7
	if got := r.Resolve(none); got.Rcode != dns.RcodeFormatError || got.Id != 7 {
		t.Errorf("no question: %s id %d, want FORMERR id 7", dns.RcodeToString[got.Rcode], got.Id)
	}

	update := new(dns.Msg).SetUpdate("cluster.local.")
	if got := r.Resolve(update).Rcode; got != dns.RcodeNotImplemented {
		t.Errorf("UPDATE: %s, want NOTIMP", dns.RcodeToString[got])
	}

	chaos := new(dns.Msg).SetQuestion("version.bind.", dns.TypeTXT)
	chaos.Question[0].Qclass = dns.ClassCHAOS
	if got := r.Resolve(chaos).Rcode; got != dns.RcodeRefused {
		t.Errorf("CHAOS class: %s, want REFUSED", dns.RcodeToString[got])
	}

	edns := new(dns.Msg).SetQuestion("web.default.svc.cluster.local.", dns.TypeA)
	edns.SetEdns0(1232, true)
	reply := r.Resolve(edns)
	if opt := reply.IsEdns0(); opt == nil || opt.UDPSize() != 1232 || !opt.Do() || len(reply.Answer) != 1 {
		t.Errorf("EDNS0 query: reply OPT %v, %d answers; want the client's size 1232, DO set, one answer", opt, len(reply.Answer))
	}

	badVersion := new(dns.Msg).SetQuestion("web.default.svc.cluster.local.", dns.TypeA)
	badVersion.SetEdns0(1232, false)
	badVersion.IsEdns0().SetVersion(1)
	reply = r.Resolve(badVersion)
	if reply.Rcode != dns.RcodeBadVers || reply.IsEdns0() == nil || len(reply.Answer) != 0 {
		t.Errorf("EDNS version 1: rcode %s, OPT %v; want BADVERS with an OPT record", dns.RcodeToString[reply.Rcode], reply.IsEdns0())
	}
	if _, err := reply.Pack(); err != nil {
		t.Errorf("BADVERS reply does not pack: %v", err)
	}
}

// TestZoneRecords lists the fixture zone: what every query would answer.
func TestZoneRecords(t *testing.T) {
	_, r := newFixture(t)
	got := rrs(nil)
	for _, line := range r.ZoneRecords() {
		got = append(got, rrs([]dns.RR{mustRR(t, line)})...)
	}
	want := []string{
		clusterSOA,
		"cluster.local. 5 IN NS ns.dns.cluster.local.",
		"nginx-ss.default.svc.cluster.local. 5 IN A 10.244.1.7",
		"nginx-ss.default.svc.cluster.local. 5 IN A 10.244.2.8",
		"nginx-ss.default.svc.cluster.local. 5 IN SRV 0 50 80 nginx-ss-0.nginx-ss.default.svc.cluster.local.",
		"nginx-ss.default.svc.cluster.local. 5 IN SRV 0 50 80 nginx-ss-1.nginx-ss.default.svc.cluster.local.",
		"nginx-ss-0.nginx-ss.default.svc.cluster.local. 5 IN A 10.244.1.7",
		"nginx-ss-1.nginx-ss.default.svc.cluster.local. 5 IN A 10.244.2.8",
		"_web._tcp.nginx-ss.default.svc.cluster.local. 5 IN SRV 0 50 80 nginx-ss-0.nginx-ss.default.svc.cluster.local.",
		"_web._tcp.nginx-ss.default.svc.cluster.local. 5 IN SRV 0 50 80 nginx-ss-1.nginx-ss.default.svc.cluster.local.",
		"plain.default.svc.cluster.local. 5 IN A 10.244.2.10",
		"plain.default.svc.cluster.local. 5 IN SRV 0 100 80 10-244-2-10.plain.default.svc.cluster.local.",
		"10-244-2-10.plain.default.svc.cluster.local. 5 IN A 10.244.2.10",
		"web.default.svc.cluster.local. 5 IN A 10.96.0.20",
		"web.default.svc.cluster.local. 5 IN SRV 0 50 80 web.default.svc.cluster.local.",
		"web.default.svc.cluster.local. 5 IN SRV 0 50 9090 web.default.svc.cluster.local.",
		"10-244-1-5.web.default.svc.cluster.local. 5 IN A 10.244.1.5",
		"10-244-2-6.web.default.svc.cluster.local. 5 IN A 10.244.2.6",
		"_http._tcp.web.default.svc.cluster.local. 5 IN SRV 0 100 80 web.default.svc.cluster.local.",
		"_metrics._tcp.web.default.svc.cluster.local. 5 IN SRV 0 100 9090 web.default.svc.cluster.local.",
		// Three ports share the weight; port 53 twice (UDP and TCP) is one record.
		"kube-dns.kube-system.svc.cluster.local. 5 IN A 10.96.0.10",
		"kube-dns.kube-system.svc.cluster.local. 5 IN SRV 0 33 53 kube-dns.kube-system.svc.cluster.local.",
		"kube-dns.kube-system.svc.cluster.local. 5 IN SRV 0 33 9153 kube-dns.kube-system.svc.cluster.local.",
		"_dns._udp.kube-dns.kube-system.svc.cluster.local. 5 IN SRV 0 100 53 kube-dns.kube-system.svc.cluster.local.",
		"_dns-tcp._tcp.kube-dns.kube-system.svc.cluster.local. 5 IN SRV 0 100 53 kube-dns.kube-system.svc.cluster.local.",
		"_metrics._tcp.kube-dns.kube-system.svc.cluster.local. 5 IN SRV 0 100 9153 kube-dns.kube-system.svc.cluster.local.",
		"10.0.96.10.in-addr.arpa. 5 IN PTR kube-dns.kube-system.svc.cluster.local.",
		"20.0.96.10.in-addr.arpa. 5 IN PTR web.default.svc.cluster.local.",
		"5.1.244.10.in-addr.arpa. 5 IN PTR 10-244-1-5.web.default.svc.cluster.local.",
		"7.1.244.10.in-addr.arpa. 5 IN PTR nginx-ss-0.nginx-ss.default.svc.cluster.local.",
		"6.2.244.10.in-addr.arpa. 5 IN PTR 10-244-2-6.web.default.svc.cluster.local.",
		"8.2.244.10.in-addr.arpa. 5 IN PTR nginx-ss-1.nginx-ss.default.svc.cluster.local.",
		"10.2.244.10.in-addr.arpa. 5 IN PTR 10-244-2-10.plain.default.svc.cluster.local.",
	}
	if len(got) != len(want) {
		t.Errorf("%d records, want %d", len(got), len(want))
	}
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("record %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

func mustRR(t *testing.T, line string) dns.RR {
	t.Helper()
	rr, err := dns.NewRR(line)
	if err != nil {
		t.Fatalf("parse %q: %v", line, err)
	}
	return rr
}
