package e2e

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"kplane/pkg/client"
	"kplane/test/framework"
)

// ctlStatusDNSRE finds the cluster DNS's address in `ctl status`: the line
// `dns 127.0.0.1:<port>` (issue 14), the address a student gives dig.
var ctlStatusDNSRE = regexp.MustCompile(`(?m)^\s*dns\s+(127\.0\.0\.1:\d+)\s*$`)

// dnsAnswersTheSeedsStatefulSet is the seed's DNS lesson (000:
// statefulset.yaml, then `getent hosts
// nginx-ss-1.nginx-ss.default.svc.cluster.local` in a pod) asked of the
// cluster DNS directly, with a DNS client at the address `ctl status`
// prints, as a student with dig does. c runs the seeds' statefulset.yaml
// with both pods up (TestServicesStatefulSetDNS):
//   - the headless Service nginx-ss answers both pods' IPs, with CoreDNS's
//     default TTL of 5 seconds;
//   - nginx-ss-1.nginx-ss.default.svc.cluster.local answers nginx-ss-1's
//     IP, and PTR of that IP answers the name back;
//   - once the Service's port is named web, SRV _web._tcp answers both
//     pods by name, with their addresses in the additional section;
//   - an unknown name is NXDOMAIN; kubernetes.default and the kube-dns
//     Service (which the DNS creates at 10.96.0.10) answer their cluster
//     IPs; a name outside the cluster is REFUSED (kplane's DNS forwards
//     nothing).
func dnsAnswersTheSeedsStatefulSet(t *testing.T, c *framework.LocalCluster) {
	t.Helper()
	code, status := svcsCtl(t, c, "status")
	m := ctlStatusDNSRE.FindStringSubmatch(status)
	if code != 0 || m == nil {
		t.Fatalf("ctl status (exit %d) prints no line `dns 127.0.0.1:<port>`:\n%s", code, status)
	}
	server := m[1]
	ip0, ip1 := podIP(t, c, "nginx-ss-0"), podIP(t, c, "nginx-ss-1")

	// The endpoints become ready a moment after the pods run.
	waitAnswer(t, server, "nginx-ss.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess, sortedLines(
		"nginx-ss.default.svc.cluster.local. 5 IN A "+ip0,
		"nginx-ss.default.svc.cluster.local. 5 IN A "+ip1))
	waitAnswer(t, server, "nginx-ss-1.nginx-ss.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess,
		[]string{"nginx-ss-1.nginx-ss.default.svc.cluster.local. 5 IN A " + ip1})
	reverse, err := dns.ReverseAddr(ip1)
	if err != nil {
		t.Fatal(err)
	}
	waitAnswer(t, server, reverse, dns.TypePTR, dns.RcodeSuccess,
		[]string{reverse + " 5 IN PTR nginx-ss-1.nginx-ss.default.svc.cluster.local."})

	// The seed's port has no name; SRV needs one.
	c.MustKubectl(t, "patch", "service", "nginx-ss", "--type=json", "-p", `[{"op":"add","path":"/spec/ports/0/name","value":"web"}]`)
	reply := waitAnswer(t, server, "_web._tcp.nginx-ss.default.svc.cluster.local.", dns.TypeSRV, dns.RcodeSuccess, sortedLines(
		"_web._tcp.nginx-ss.default.svc.cluster.local. 5 IN SRV 0 50 80 nginx-ss-0.nginx-ss.default.svc.cluster.local.",
		"_web._tcp.nginx-ss.default.svc.cluster.local. 5 IN SRV 0 50 80 nginx-ss-1.nginx-ss.default.svc.cluster.local."))
	if got, want := sortedLines(recordLines(reply.Extra)...), sortedLines(
		"nginx-ss-0.nginx-ss.default.svc.cluster.local. 5 IN A "+ip0,
		"nginx-ss-1.nginx-ss.default.svc.cluster.local. 5 IN A "+ip1); !slices.Equal(got, want) {
		t.Errorf("SRV additional section %q, want %q", got, want)
	}

	waitAnswer(t, server, "nginx-ss-9.nginx-ss.default.svc.cluster.local.", dns.TypeA, dns.RcodeNameError, nil)
	waitAnswer(t, server, "kubernetes.default.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess,
		[]string{"kubernetes.default.svc.cluster.local. 5 IN A 10.96.0.1"})
	waitAnswer(t, server, "kube-dns.kube-system.svc.cluster.local.", dns.TypeA, dns.RcodeSuccess,
		[]string{"kube-dns.kube-system.svc.cluster.local. 5 IN A 10.96.0.10"})
	waitAnswer(t, server, "example.com.", dns.TypeA, dns.RcodeRefused, nil)
}

// podIP is the pod's IP in default.
func podIP(t *testing.T, c *framework.LocalCluster, name string) string {
	t.Helper()
	pod, err := c.Client(t).Pods("default").Get(context.Background(), name, client.GetOptions{})
	if err != nil || pod.Status.PodIP == "" {
		t.Fatalf("pod %s: IP %q, %v", name, pod.Status.PodIP, err)
	}
	return pod.Status.PodIP
}

// waitAnswer asks server name/qtype over UDP until the reply has rcode
// and, sorted, the answer lines want; it returns that reply.
func waitAnswer(t *testing.T, server, name string, qtype uint16, rcode int, want []string) *dns.Msg {
	t.Helper()
	var reply *dns.Msg
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		c := &dns.Client{Timeout: 2 * time.Second}
		r, _, err := c.Exchange(new(dns.Msg).SetQuestion(name, qtype), server)
		if err != nil {
			return false, fmt.Sprintf("%s %s: %v", name, dns.TypeToString[qtype], err)
		}
		reply = r
		got := sortedLines(recordLines(r.Answer)...)
		return r.Rcode == rcode && slices.Equal(got, want),
			fmt.Sprintf("%s %s: %s %q, want %s %q", name, dns.TypeToString[qtype], dns.RcodeToString[r.Rcode], got, dns.RcodeToString[rcode], want)
	})
	return reply
}

// recordLines renders records in zone-file form with single spaces.
func recordLines(records []dns.RR) []string {
	var lines []string
	for _, rr := range records {
		lines = append(lines, strings.Join(strings.Fields(rr.String()), " "))
	}
	return lines
}

func sortedLines(lines ...string) []string {
	return slices.Sorted(slices.Values(lines))
}
