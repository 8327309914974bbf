package dns

import (
	"testing"

	"github.com/miekg/dns"
)

// FuzzResolve asks the fixture resolver any name and type: it must never
// panic, always answer the question asked, and its reply must pack (a
// record it cannot encode would make the server send nothing).
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{
		"web.default.svc.cluster.local.", "_http._tcp.web.default.svc.cluster.local.", "nginx-ss-0.nginx-ss.default.svc.cluster.local.",
		"10-244-1-5.default.pod.cluster.local.", "fd00--1.default.pod.cluster.local.", "7.1.244.10.in-addr.arpa.", "cluster.local.",
		"a.b.c.d.e.f.cluster.local.", "example.com.", "localhost.", "--.-.pod.cluster.local.",
	} {
		f.Add(seed, dns.TypeA)
		f.Add(seed, dns.TypeSRV)
		f.Add(seed, dns.TypePTR)
	}
	_, r := newFixture(f)
	f.Fuzz(func(t *testing.T, name string, qtype uint16) {
		if _, ok := dns.IsDomainName(name); !ok {
			return
		}
		req := new(dns.Msg).SetQuestion(dns.Fqdn(name), qtype)
		if _, err := req.Pack(); err != nil {
			return // no client could send it
		}
		reply := r.Resolve(req)
		if len(reply.Question) != 1 || reply.Question[0] != req.Question[0] || reply.Id != req.Id {
			t.Fatalf("reply to %q type %d does not answer the question: %v", name, qtype, reply)
		}
		if _, err := reply.Pack(); err != nil {
			t.Fatalf("reply to %q type %d does not pack: %v\n%v", name, qtype, err, reply)
		}
	})
}
