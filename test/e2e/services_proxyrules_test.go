package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"kplane/test/framework"
)

// TestServicesProxyRules is issue 14's third "Done when": for a Service
// with three ready endpoints, `ctl proxy-rules --node node1` prints the
// Service's KUBE-SVC chain as iptables-save would, its jumps to the three
// KUBE-SEP chains taken with probability 1/3, then 1/2, then always (the
// only way iptables' random match splits evenly: each rule takes its share
// of what the rules before it left); after one pod goes unready the chain
// soon has two jumps (1/2, then always); and the IPVS view (`--mode ipvs`)
// lists the Service's virtual server with three real servers.
func TestServicesProxyRules(t *testing.T) {
	t.Parallel()
	c := svcsStartCluster(t, svcsKubeProxy)
	applyYAML(t, c, svcsWebManifest)
	pods := svcsReadyPods(t, c, "app=web", 3)
	clusterIP := svcsServiceIP(t, c, "web")

	chain := svcsChainUntil(t, c, clusterIP, svcsEndpoints(svcsPodIPs(pods), 80))
	for i, want := range []string{"0.33333", "0.50000", ""} {
		if got := chain[i].probability; !strings.HasPrefix(got, want) || (want == "" && got != "") {
			t.Errorf("KUBE-SVC jump %d (to %s) has probability %q, want %s", i+1, chain[i].endpoint, got, svcsOrAlways(want))
		}
	}

	ipvs := svcsIPVSUntil(t, c, clusterIP+":80", svcsEndpoints(svcsPodIPs(pods), 80))
	t.Logf("IPVS virtual server %s:80: real servers %v", clusterIP, ipvs)

	// One pod fails its readiness probe: it leaves the Service's ready
	// endpoints, and kube-proxy's next sync drops its jump.
	sick := pods[0]
	c.MustKubectl(t, "annotate", "pod", sick.Name, "sim.kplane.io/readiness=fail", "--overwrite")
	chain = svcsChainUntil(t, c, clusterIP, svcsEndpoints(svcsPodIPs(pods[1:]), 80))
	for i, want := range []string{"0.50000", ""} {
		if got := chain[i].probability; !strings.HasPrefix(got, want) || (want == "" && got != "") {
			t.Errorf("after %s went unready: KUBE-SVC jump %d (to %s) has probability %q, want %s", sick.Name, i+1, chain[i].endpoint, got, svcsOrAlways(want))
		}
	}
}

// svcsOrAlways names an expected probability for a failure message.
func svcsOrAlways(p string) string {
	if p == "" {
		return "none (the last jump is unconditional)"
	}
	return p + "…"
}

// svcsEndpoints returns ip:port for each IP, sorted.
func svcsEndpoints(ips []string, port int) []string {
	var eps []string
	for _, ip := range ips {
		eps = append(eps, fmt.Sprintf("%s:%d", ip, port))
	}
	slices.Sort(eps)
	return eps
}

// svcsJump is one rule of a KUBE-SVC chain: the probability of its
// statistic match ("" for none) and the DNAT destination of the KUBE-SEP
// chain it jumps to.
type svcsJump struct {
	probability, endpoint string
}

// svcsChainUntil runs `ctl proxy-rules --node node1` until the KUBE-SVC
// chain of the Service at clusterIP:80 jumps to exactly the endpoints
// want (ip:port, sorted), and returns its jumps in rule order.
func svcsChainUntil(t *testing.T, c *framework.LocalCluster, clusterIP string, want []string) []svcsJump {
	t.Helper()
	var jumps []svcsJump
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		code, out := svcsCtl(t, c, "proxy-rules", "--node", "node1")
		if code != 0 {
			return false, fmt.Sprintf("ctl proxy-rules --node node1 exited %d:\n%s", code, out)
		}
		jumps = svcsKubeSVCChain(out, clusterIP, 80)
		var got []string
		for _, j := range jumps {
			got = append(got, j.endpoint)
		}
		slices.Sort(got)
		return slices.Equal(got, want), fmt.Sprintf("want the KUBE-SVC chain of %s:80 to jump to %v; jumps %v in:\n%s", clusterIP, want, jumps, out)
	})
	return jumps
}

// svcsKubeSVCChain reads iptables-save output the way a student reads it:
// the nat table's KUBE-SERVICES rule for clusterIP:port names the
// Service's KUBE-SVC chain; that chain's rules that jump to a KUBE-SEP
// chain are the endpoints, in order, each KUBE-SEP chain ending in a DNAT
// to the endpoint's ip:port.
func svcsKubeSVCChain(rules string, clusterIP string, port int) []svcsJump {
	lines := strings.Split(rules, "\n")
	var svcChain string
	for _, line := range lines {
		f := strings.Fields(line)
		dest := strings.TrimSuffix(svcsFlag(f, "-d"), "/32")
		if len(f) > 1 && f[0] == "-A" && f[1] == "KUBE-SERVICES" && dest == clusterIP &&
			svcsFlag(f, "--dport") == fmt.Sprint(port) && strings.HasPrefix(svcsFlag(f, "-j"), "KUBE-SVC-") {
			svcChain = svcsFlag(f, "-j")
		}
	}
	if svcChain == "" {
		return nil
	}
	dnat := map[string]string{} // KUBE-SEP chain → its DNAT destination
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) > 1 && f[0] == "-A" && strings.HasPrefix(f[1], "KUBE-SEP-") && svcsFlag(f, "-j") == "DNAT" {
			dnat[f[1]] = svcsFlag(f, "--to-destination")
		}
	}
	var jumps []svcsJump
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) > 1 && f[0] == "-A" && f[1] == svcChain && strings.HasPrefix(svcsFlag(f, "-j"), "KUBE-SEP-") {
			jumps = append(jumps, svcsJump{probability: svcsFlag(f, "--probability"), endpoint: dnat[svcsFlag(f, "-j")]})
		}
	}
	return jumps
}

// svcsFlag returns the word after flag in an iptables rule's words ("" if
// the flag is absent).
func svcsFlag(words []string, flag string) string {
	for i := 0; i+1 < len(words); i++ {
		if words[i] == flag {
			return words[i+1]
		}
	}
	return ""
}

// svcsIPVSUntil runs `ctl proxy-rules --node node1 --mode ipvs` until the
// virtual server vip (ip:port) lists exactly the real servers want
// (ip:port, sorted), and returns them.
func svcsIPVSUntil(t *testing.T, c *framework.LocalCluster, vip string, want []string) []string {
	t.Helper()
	var real []string
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		code, out := svcsCtl(t, c, "proxy-rules", "--node", "node1", "--mode", "ipvs")
		if code != 0 {
			return false, fmt.Sprintf("ctl proxy-rules --node node1 --mode ipvs exited %d:\n%s", code, out)
		}
		real = svcsIPVSRealServers(out, vip)
		return slices.Equal(real, want), fmt.Sprintf("want virtual server TCP %s with real servers %v; got %v in:\n%s", vip, want, real, out)
	})
	return real
}

// svcsIPVSRealServers reads `ipvsadm -Ln` output: the real servers
// ("  -> ip:port  Masq  1 …") listed under the virtual server line
// "TCP  vip rr", sorted.
func svcsIPVSRealServers(out, vip string) []string {
	var real []string
	in := false
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && (f[0] == "TCP" || f[0] == "UDP" || f[0] == "SCTP"):
			in = f[0] == "TCP" && f[1] == vip
		case in && len(f) >= 2 && f[0] == "->" && f[1] != "RemoteAddress:Port":
			real = append(real, f[1])
		}
	}
	slices.Sort(real)
	return real
}
