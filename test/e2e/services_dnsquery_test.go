package e2e

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"kplane/test/framework"
)

// ctlStatusDNSRE finds the cluster DNS's address in `ctl status`: the line
// `dns 127.0.0.1:<port>` (issue 14), the address a student gives dig.
var ctlStatusDNSRE = regexp.MustCompile(`(?m)^\s*dns\s+(127\.0\.0\.1:\d+)\s*$`)

// svcsQueryClusterDNS asks the cluster DNS directly, at the address `ctl
// status` prints, about the seeds' headless Service nginx-ss, whose pods
// have podIPs: A for the Service name answers both pods' IPs; once the
// Service's port is named (web), SRV for _web._tcp names both pods'
// stable names on port 80, with their addresses in the additional
// section; an unknown name is NXDOMAIN. The answers follow the
// EndpointSlices, so each is polled until it comes.
func svcsQueryClusterDNS(t *testing.T, c *framework.LocalCluster, podIPs []string) {
	t.Helper()
	code, status := svcsCtl(t, c, "status")
	m := ctlStatusDNSRE.FindStringSubmatch(status)
	if code != 0 || m == nil {
		t.Fatalf("ctl status (exit %d) prints no line `dns 127.0.0.1:<port>`:\n%s", code, status)
	}
	server := m[1]
	want := slices.Clone(podIPs)
	slices.Sort(want)

	svcsDNSUntil(t, server, "nginx-ss.default.svc.cluster.local.", dns.TypeA, func(r *dns.Msg) bool {
		return r.Rcode == dns.RcodeSuccess && slices.Equal(svcsARecords(r.Answer), want)
	})

	c.MustKubectl(t, "patch", "service", "nginx-ss", "--type=json", `-p=[{"op":"add","path":"/spec/ports/0/name","value":"web"}]`)
	targets := []string{"nginx-ss-0.nginx-ss.default.svc.cluster.local.", "nginx-ss-1.nginx-ss.default.svc.cluster.local."}
	svcsDNSUntil(t, server, "_web._tcp.nginx-ss.default.svc.cluster.local.", dns.TypeSRV, func(r *dns.Msg) bool {
		var got []string
		for _, rr := range r.Answer {
			if srv, ok := rr.(*dns.SRV); ok && srv.Port == 80 {
				got = append(got, srv.Target)
			}
		}
		slices.Sort(got)
		return r.Rcode == dns.RcodeSuccess && slices.Equal(got, targets) && slices.Equal(svcsARecords(r.Extra), want)
	})

	svcsDNSUntil(t, server, "no-such-service.default.svc.cluster.local.", dns.TypeA, func(r *dns.Msg) bool {
		return r.Rcode == dns.RcodeNameError && len(r.Answer) == 0
	})
}

// svcsDNSUntil asks server (UDP) for name's records of type qtype until
// ok accepts the answer; on timeout it fails with the last answer or error.
func svcsDNSUntil(t *testing.T, server, name string, qtype uint16, ok func(*dns.Msg) bool) {
	t.Helper()
	client := &dns.Client{Net: "udp", Timeout: 2 * time.Second}
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		q := new(dns.Msg)
		q.SetQuestion(name, qtype)
		r, _, err := client.Exchange(q, server)
		if err != nil {
			return false, fmt.Sprintf("%s %s @%s: %v", dns.TypeToString[qtype], name, server, err)
		}
		return ok(r), fmt.Sprintf("%s %s @%s answered:\n%s", dns.TypeToString[qtype], name, server, r)
	})
	t.Logf("%s %s: the cluster DNS answers as it should", dns.TypeToString[qtype], strings.TrimSuffix(name, "."))
}

// svcsARecords returns the addresses of the A records in rrs, sorted.
func svcsARecords(rrs []dns.RR) []string {
	var ips []string
	for _, rr := range rrs {
		if a, ok := rr.(*dns.A); ok {
			ips = append(ips, a.A.String())
		}
	}
	slices.Sort(ips)
	return ips
}
