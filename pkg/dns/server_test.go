package dns

import (
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/miekg/dns"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"kplane/pkg/api"
)

// startServer serves r on a free loopback port until the test ends.
func startServer(t testing.TB, r *Resolver) *Server {
	t.Helper()
	s, err := Listen("--listen", "127.0.0.1:0", r, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Serve())
	return s
}

// exchange sends one query over network ("udp" or "tcp").
func exchange(t *testing.T, s *Server, network string, req *dns.Msg) *dns.Msg {
	t.Helper()
	c := &dns.Client{Net: network}
	reply, _, err := c.Exchange(req, s.Addr())
	if err != nil {
		t.Fatalf("%s query %s: %v", network, req.Question[0].Name, err)
	}
	return reply
}

// TestServerAnswersOverUDPAndTCP queries one name over both transports,
// on the same port, and counts them in CoreDNS's metrics.
func TestServerAnswersOverUDPAndTCP(t *testing.T) {
	_, r := newFixture(t)
	s := startServer(t, r)
	label := "dns://" + s.Addr()
	for _, network := range []string{"udp", "tcp"} {
		reply := exchange(t, s, network, new(dns.Msg).SetQuestion("nginx-ss-1.nginx-ss.default.svc.cluster.local.", dns.TypeA))
		expect(t, reply, dns.RcodeSuccess, []string{"nginx-ss-1.nginx-ss.default.svc.cluster.local. 5 IN A 10.244.2.8"}, nil, nil)
		if got := testutil.ToFloat64(requestsTotal.WithLabelValues(label, ".", "", network, "1", "A")); got != 1 {
			t.Errorf("coredns_dns_requests_total{proto=%q,type=A} = %v, want 1", network, got)
		}
	}
	exchange(t, s, "udp", new(dns.Msg).SetQuestion("nope.default.svc.cluster.local.", dns.TypeA))
	exchange(t, s, "udp", new(dns.Msg).SetQuestion("example.com.", dns.TypeA))
	for rcode, want := range map[string]float64{"NOERROR": 2, "NXDOMAIN": 1} {
		if got := testutil.ToFloat64(responsesTotal.WithLabelValues(label, ".", "", rcode, "kubernetes")); got != want {
			t.Errorf("coredns_dns_responses_total{rcode=%q} = %v, want %v", rcode, got, want)
		}
	}
	if got := testutil.ToFloat64(responsesTotal.WithLabelValues(label, ".", "", "REFUSED", "")); got != 1 {
		t.Errorf("coredns_dns_responses_total{rcode=REFUSED} = %v, want 1", got)
	}
}

// TestServerTruncatesLargeUDPAnswers: a headless Service of 100 pods does
// not fit in 512 bytes; UDP answers part of it with TC set, EDNS0 with a
// larger buffer or TCP answer it whole.
func TestServerTruncatesLargeUDPAnswers(t *testing.T) {
	table, r := newFixture(t)
	table.SetService(headlessService("default", "big", port("http", 80)))
	var endpoints []endpoint
	for i := range 100 {
		endpoints = append(endpoints, endpoint{ip: fmt.Sprintf("10.244.3.%d", i+1), ready: true})
	}
	table.SetEndpointSlice(slice("default", "big", "big-abcde", api.AddressTypeIPv4, []api.ServicePort{port("http", 80)}, endpoints...))
	s := startServer(t, r)
	name := "big.default.svc.cluster.local."

	plain := exchange(t, s, "udp", new(dns.Msg).SetQuestion(name, dns.TypeA))
	if !plain.Truncated || len(plain.Answer) == 0 || len(plain.Answer) >= 100 {
		t.Errorf("UDP without EDNS0: TC %v with %d answers; want TC and part of the 100", plain.Truncated, len(plain.Answer))
	}
	plain.Compress = true // as it was sent
	if packed, _ := plain.Pack(); len(packed) > dns.MinMsgSize {
		t.Errorf("UDP reply of %d bytes, over 512", len(packed))
	}

	large := new(dns.Msg).SetQuestion(name, dns.TypeA)
	large.SetEdns0(4096, false)
	if reply := exchange(t, s, "udp", large); reply.Truncated || len(reply.Answer) != 100 {
		t.Errorf("UDP with a 4096-byte EDNS0 buffer: TC %v with %d answers; want all 100", reply.Truncated, len(reply.Answer))
	}
	if reply := exchange(t, s, "tcp", new(dns.Msg).SetQuestion(name, dns.TypeA)); reply.Truncated || len(reply.Answer) != 100 {
		t.Errorf("TCP: TC %v with %d answers; want all 100", reply.Truncated, len(reply.Answer))
	}
}

// TestListenRefusesNonLoopback keeps the DNS on the machine.
func TestListenRefusesNonLoopback(t *testing.T) {
	_, r := newFixture(t)
	if _, err := Listen("--listen", "0.0.0.0:0", r, nil, 0); err == nil {
		t.Fatal("Listen on 0.0.0.0 succeeded; want an error")
	}
}
