package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"kplane/test/framework"
)

// nginxSS1Name is the stable DNS name of the seeds' StatefulSet's second
// pod: <hostname>.<subdomain = the governing Service>.<namespace>.svc.<domain>.
const nginxSS1Name = "nginx-ss-1.nginx-ss.default.svc.cluster.local"

// TestServicesStatefulSetDNS is issue 14's first "Done when": the seeds'
// statefulset.yaml (the StatefulSet nginx-ss and its headless Service);
// `kubectl exec nginx-ss-0 -- getent hosts nginx-ss-1.nginx-ss.default.svc.cluster.local`
// prints nginx-ss-1's pod IP and that name, with the WebSocket kubectl and
// with a SPDY one; an interactive shell (`kubectl exec -i nginx-ss-0 --
// /bin/sh`, the lines on stdin) does the same and shows the resolv.conf
// the kubelet wrote for dnsPolicy ClusterFirst; and the cluster DNS, asked
// directly at the address `ctl status` prints, answers the headless Service
// with both pods' IPs, SRV for a named port and NXDOMAIN for an unknown
// name, among the other records dnsAnswersTheSeedsStatefulSet (dns_test.go)
// checks.
func TestServicesStatefulSetDNS(t *testing.T) {
	t.Parallel()
	c := svcsStartCluster(t, svcsDNS)
	c.MustKubectl(t, "apply", "-f", examplePath(t, "statefulset.yaml"))
	pods := svcsReadyPods(t, c, "app=nginx-ss", 2)
	if pods[0].Name != "nginx-ss-0" || pods[1].Name != "nginx-ss-1" {
		t.Fatalf("the StatefulSet's pods are %s and %s, want nginx-ss-0 and nginx-ss-1", pods[0].Name, pods[1].Name)
	}
	ip := pods[1].Status.PodIP
	spdy := svcsSPDYKubectl(t)
	kubectls := []framework.KubectlMinor{{Path: framework.RequireKubectl(t)}, spdy}
	name := func(k framework.KubectlMinor) string {
		if k.Minor == 0 {
			return "kubectl (WebSocket)"
		}
		return fmt.Sprintf("kubectl 1.%d (SPDY)", k.Minor)
	}

	// One command: the DNS learns nginx-ss-1's hostname from the
	// EndpointSlice, so the first asks may come before it does.
	for _, k := range kubectls {
		out := svcsExecUntil(t, c, k.Path, "", func(stdout string) bool { return svcsHasHostsLine(stdout, ip, nginxSS1Name) },
			"exec", "nginx-ss-0", "--", "getent", "hosts", nginxSS1Name)
		t.Logf("%s: getent hosts %s:\n%s", name(k), nginxSS1Name, out)
	}

	// The seed's interactive session, its lines on stdin (kubectl -i; a
	// terminal would add -t).
	session := "getent hosts " + nginxSS1Name + "\ncat /etc/resolv.conf\nexit\n"
	for _, k := range kubectls {
		r := framework.RunKubectl(t, k.Path, c.KubeconfigPath(), c.Home, session, "exec", "-i", "nginx-ss-0", "--", "/bin/sh")
		if r.Err != nil {
			t.Fatalf("%s exec -i nginx-ss-0 -- /bin/sh: %v\nstdin:\n%s\nstdout:\n%s\nstderr:\n%s", name(k), r.Err, session, r.Stdout, r.Stderr)
		}
		if !svcsHasHostsLine(r.Stdout, ip, nginxSS1Name) {
			t.Errorf("%s: the shell's getent did not print %q:\n%s", name(k), ip+" "+nginxSS1Name, r.Stdout)
		}
		for _, want := range []string{
			"search default.svc.cluster.local svc.cluster.local cluster.local",
			"nameserver 10.96.0.10",
			"options ndots:5",
		} {
			if !slices.Contains(svcsTrimmedLines(r.Stdout), want) {
				t.Errorf("%s: the shell's /etc/resolv.conf has no line %q:\n%s", name(k), want, r.Stdout)
			}
		}
	}

	dnsAnswersTheSeedsStatefulSet(t, c)
}

// svcsHasHostsLine reports whether out has a line of getent's hosts
// format naming ip and name, and nothing else: "<ip> <name>".
func svcsHasHostsLine(out, ip, name string) bool {
	for _, line := range strings.Split(out, "\n") {
		if slices.Equal(strings.Fields(line), []string{ip, name}) {
			return true
		}
	}
	return false
}

// svcsTrimmedLines splits out into lines without surrounding blanks.
func svcsTrimmedLines(out string) []string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		lines = append(lines, strings.TrimSpace(line))
	}
	return lines
}
