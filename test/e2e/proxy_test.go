package e2e

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

var (
	// svcEndpointRuleRE is one rule of default/web's KUBE-SVC chain as
	// upstream's iptables proxier writes it: the chain and KUBE-SEP names
	// are a prefix and 16 base32 characters of a hash, the comment names
	// the Service port ("default/web:http") and the endpoint, and every
	// rule but the last has a statistic match.
	svcEndpointRuleRE = regexp.MustCompile(`(?m)^-A KUBE-SVC-[A-Z2-7]{16} -m comment --comment "default/web:http -> [0-9.]+:80"( -m statistic --mode random --probability (0\.\d{10}))? -j KUBE-SEP-[A-Z2-7]{16}$`)
	// realServerRE is a real server line of `ipvsadm -Ln`: a pod on port
	// 80, masqueraded, weight 1, no connections.
	realServerRE = regexp.MustCompile(`(?m)^  -> 10\.244\.[0-9.]+:80 +Masq +1 +0 +0$`)
)

// svcsCurlAsks bounds how often the test asks `curl -s web` before it
// concludes that the answers never come from a second pod. kube-proxy's
// rules pick each of three endpoints with probability 1/3, so 30 asks all
// answered by one pod happen with probability 3 × (1/3)^30 ≈ 10⁻¹⁴.
const svcsCurlAsks = 30

// svcsCurlAsksUnready bounds the asks once a pod is unready: enough that
// an unready pod still in the rules would answer one of them (1 − (2/3)^12
// ≈ 99%), few enough to stay quick.
const svcsCurlAsksUnready = 12

// endpointRules returns the probabilities of default/web's KUBE-SVC
// endpoint rules in order ("" for the last, unconditional one).
func endpointRules(rules string) []string {
	var out []string
	for _, m := range svcEndpointRuleRE.FindAllStringSubmatch(rules, -1) {
		out = append(out, m[2])
	}
	return out
}

// TestProxyRulesFollowReadiness is issue 14's Done-when 3: for a Service
// with three ready endpoints, `ctl proxy-rules --node node1` shows the
// Service's KUBE-SVC chain as iptables-save would, its jumps to the three
// pods' KUBE-SEP chains (each a DNAT to the pod's IP) taken with
// probability 1/3, then 1/2, then always (the only way iptables' random
// match splits evenly: each rule takes its share of what the rules before
// it left); the nftables view splits with numgen mod 3, the IPVS view
// lists the three pods as real servers; when a pod goes unready the
// chain soon jumps to the two others only.
//
// And Done-when 5, which rests on these rules, on the simulated runtime:
// `kubectl exec <pod> -- curl -s web` from one of the web pods is answered
// by nginx's welcome page naming one of the three pods — the simulated
// shell resolved web through the cluster DNS and asked its node's
// kube-proxy which endpoint the rules pick — repeated calls reach more
// than one, and once a pod is unready it never answers.
func TestProxyRulesFollowReadiness(t *testing.T) {
	t.Parallel()
	c := svcsStartCluster(t, svcsDNS, svcsKubeProxy)
	applyYAML(t, c, svcsWebManifest)
	pods := svcsReadyPods(t, c, "app=web", 3)
	clusterIP := svcsServiceIP(t, c, "web")
	// sick is the pod made unready below; asker, another pod, runs curl.
	sick, asker := pods[0], pods[1]

	seen := svcsChainUntil(t, c, "node1", clusterIP, svcsEndpoints(svcsPodIPs(pods), 80))
	all, chain := seen.rules, seen.jumps
	for i, want := range []string{"0.3333333333", "0.5000000000", ""} {
		if got := chain[i].probability; got != want {
			t.Errorf("KUBE-SVC jump %d (to %s) has probability %q, want %s", i+1, chain[i].endpoint, got, svcsOrAlways(want))
		}
	}
	// --service keeps the one Service's chains, in the form upstream
	// writes them.
	if code, web := svcsCtl(t, c, "proxy-rules", "--node", "node1", "--service", "default/web"); code != 0 ||
		strings.Join(endpointRules(web), ",") != "0.3333333333,0.5000000000," {
		t.Errorf("ctl proxy-rules --service default/web (exit %d), want the three KUBE-SVC rules written as upstream writes them (hashed chain names, a comment naming the endpoint):\n%s", code, web)
	}
	// The whole table is there too, with the kube-proxy's fixed chains.
	for _, want := range []string{"*filter\n", "*nat\n", ":KUBE-SERVICES - [0:0]", "-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000", "COMMIT\n"} {
		if !strings.Contains(all, want) {
			t.Errorf("ctl proxy-rules lacks %q:\n%s", want, all)
		}
	}
	ipvs := svcsIPVSUntil(t, c, clusterIP+":80", svcsEndpoints(svcsPodIPs(pods), 80))
	if len(realServerRE.FindAllString(ipvs, -1)) != 3 || !strings.HasPrefix(ipvs, "IP Virtual Server version 1.2.1 (size=4096)\n") {
		t.Errorf("ctl proxy-rules --mode ipvs, want ipvsadm's header and three real servers (Masq, weight 1):\n%s", ipvs)
	}
	if code, nft := svcsCtl(t, c, "proxy-rules", "--node", "node1", "--mode", "nftables", "--service", "default/web"); code != 0 || !strings.Contains(nft, "numgen random mod 3 vmap {") {
		t.Errorf("ctl proxy-rules --mode nftables (exit %d), want numgen random mod 3:\n%s", code, nft)
	}

	// curl -s web from asker. The first answer may wait for the DNS and
	// asker's kube-proxy to learn the Service and its endpoints.
	kubectl := framework.RequireKubectl(t)
	curl := []string{"exec", asker.Name, "--", "curl", "-s", "web"}
	answeredBy := svcsAnsweredBy(pods)
	page := svcsExecUntil(t, c, kubectl, "", func(out string) bool { return answeredBy(out) != "" }, curl...)
	answers := map[string]int{answeredBy(page): 1}
	for ask := 1; ask < svcsCurlAsks && len(answers) < 2; ask++ {
		answers[svcsCurlOnce(t, c, kubectl, curl, answeredBy, pods)]++
	}
	if len(answers) < 2 {
		t.Fatalf("%d asks of curl -s web were all answered by %v: kube-proxy's rules should spread them over %v", svcsCurlAsks, answers, svcsPodNames(pods))
	}
	t.Logf("curl -s web answered by: %v", answers)

	// sick fails its readiness probe: the endpointslice controller marks
	// it not ready, and kube-proxy's next sync drops its jump.
	notReadyAt := svcsEndpointNotReadyAt(t, c, "web", sick.Status.PodIP)
	c.MustKubectl(t, "annotate", "pod", sick.Name, "sim.kplane.io/readiness=fail", "--overwrite")
	ready := pods[1:]
	seen = svcsChainUntil(t, c, "node1", clusterIP, svcsEndpoints(svcsPodIPs(ready), 80))
	chain = seen.jumps
	for i, want := range []string{"0.5000000000", ""} {
		if got := chain[i].probability; got != want {
			t.Errorf("after %s went unready: KUBE-SVC jump %d (to %s) has probability %q, want %s", sick.Name, i+1, chain[i].endpoint, got, svcsOrAlways(want))
		}
	}
	// Issue 14 asks for the rules to follow "within a second": how long
	// they took is logged for the record, not asserted (a loaded machine
	// would make it flaky).
	select {
	case at := <-notReadyAt:
		t.Logf("node1's rules showed two endpoints at most %v after this test's watch saw the EndpointSlice mark %s not ready (ctl proxy-rules polled every %v)",
			seen.by.Sub(at).Round(time.Millisecond), sick.Name, seen.by.Sub(seen.after).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		t.Logf("the EndpointSlice watch never saw %s marked not ready (removed instead?): no latency to report", sick.Name)
	}

	// asker's node may sync a moment after node1: wait for its rules too,
	// then curl until both ready pods have answered; sick must not.
	if node := asker.Spec.NodeName; node != "node1" {
		svcsChainUntil(t, c, node, clusterIP, svcsEndpoints(svcsPodIPs(ready), 80))
	}
	answers = map[string]int{}
	for ask := 0; ask < svcsCurlAsksUnready && len(answers) < 2; ask++ {
		pod := svcsCurlOnce(t, c, kubectl, curl, answeredBy, pods)
		if pod == sick.Name {
			t.Fatalf("curl -s web (ask %d) was answered by %s, which is not ready", ask+1, sick.Name)
		}
		answers[pod]++
	}
	t.Logf("after %s went unready, curl -s web answered by: %v", sick.Name, answers)

	// `ctl why svc/web` shows each kube-proxy's view of the Service: the
	// endpoints it sends connections to, and the one it left out.
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		code, out := svcsCtl(t, c, "why", "svc/web", "--kubeconfig", c.KubeconfigPath())
		return code == 0 && strings.Contains(out, "kube-proxy in kube-proxy-node1") && strings.Contains(out, "2 endpoints, 1/2 each") &&
			strings.Contains(out, ": not ready"), out
	})

	// Each sync is a decision `ctl why` shows, on the node it was for.
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		code, out := svcsCtl(t, c, "why", "node/node1", "--kubeconfig", c.KubeconfigPath())
		return code == 0 && strings.Contains(out, "kube-proxy") && strings.Contains(out, "synced the iptables rules"), out
	})

	// A node without a kube-proxy is a clear error.
	if code, out := svcsCtl(t, c, "proxy-rules", "--node", "node7"); code == 0 || !strings.Contains(out, `node "node7" has no kube-proxy`) {
		t.Errorf("ctl proxy-rules --node node7: exit %d\n%s", code, out)
	}
}

// svcsAnsweredBy returns a function that reads a curl answer: the one of
// pods that the simulated nginx's welcome page names ("Answered by pod
// <b>name</b>"), or "" if the answer is not that page or names none or
// several of them.
func svcsAnsweredBy(pods []*api.Pod) func(page string) string {
	return func(page string) string {
		var named []string
		for _, p := range pods {
			if strings.Contains(page, p.Name) {
				named = append(named, p.Name)
			}
		}
		if len(named) != 1 || !strings.Contains(page, "Welcome to nginx!") || !strings.Contains(page, "Answered by pod <b>"+named[0]+"</b>") {
			return ""
		}
		return named[0]
	}
}

// svcsCurlOnce runs kubectl with the curl arguments once and returns the
// pod that answered; it fails the test unless one of pods did.
func svcsCurlOnce(t *testing.T, c *framework.LocalCluster, kubectl string, curl []string, answeredBy func(string) string, pods []*api.Pod) string {
	t.Helper()
	r := framework.RunKubectl(t, kubectl, c.KubeconfigPath(), c.Home, "", curl...)
	pod := answeredBy(r.Stdout)
	if r.Err != nil || pod == "" {
		t.Fatalf("kubectl %s: %v; the answer is not nginx's page naming one of %v:\nstdout:\n%s\nstderr:\n%s",
			strings.Join(curl, " "), r.Err, svcsPodNames(pods), r.Stdout, r.Stderr)
	}
	return pod
}

// svcsEndpointNotReadyAt watches the EndpointSlices of the Service in
// default and sends, once, the time a slice first lists ip with ready
// false. The watch stops when the test ends.
func svcsEndpointNotReadyAt(t *testing.T, c *framework.LocalCluster, service, ip string) <-chan time.Time {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := c.Client(t).EndpointSlices("default").Watch(ctx, client.ListOptions{LabelSelector: "kubernetes.io/service-name=" + service})
	if err != nil {
		cancel()
		t.Fatalf("watch the EndpointSlices of %s: %v", service, err)
	}
	t.Cleanup(func() { cancel(); w.Stop() })
	at := make(chan time.Time, 1)
	go func() {
		for ev := range w.ResultChan() {
			slice, ok := ev.Object.(*api.EndpointSlice)
			if !ok || ev.Type == client.Deleted {
				continue
			}
			for _, e := range slice.Endpoints {
				if slices.Contains(e.Addresses, ip) && e.Conditions.Ready != nil && !*e.Conditions.Ready {
					at <- time.Now()
					return
				}
			}
		}
	}()
	return at
}

// svcsOrAlways names an expected probability for a failure message.
func svcsOrAlways(p string) string {
	if p == "" {
		return "none (the last jump is unconditional)"
	}
	return p
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

// svcsChainSeen is what svcsChainUntil saw when a KUBE-SVC chain jumped
// to the endpoints it waited for.
type svcsChainSeen struct {
	rules string     // all the rules ctl proxy-rules printed
	jumps []svcsJump // the chain's jumps in rule order
	// The chain changed to these jumps after the ctl run before the last
	// one started (that run still showed the old ones) and before the
	// last one ended.
	after, by time.Time
}

// svcsChainUntil runs `ctl proxy-rules --node node` until the KUBE-SVC
// chain of the Service at clusterIP:80 jumps to exactly the endpoints
// want (ip:port, sorted).
func svcsChainUntil(t *testing.T, c *framework.LocalCluster, node, clusterIP string, want []string) svcsChainSeen {
	t.Helper()
	var seen svcsChainSeen
	start := time.Now()
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		seen.after, start = start, time.Now()
		code, out := svcsCtl(t, c, "proxy-rules", "--node", node)
		seen.by = time.Now()
		if code != 0 {
			return false, fmt.Sprintf("ctl proxy-rules --node %s exited %d:\n%s", node, code, out)
		}
		seen.rules, seen.jumps = out, svcsKubeSVCChain(out, clusterIP, 80)
		var got []string
		for _, j := range seen.jumps {
			got = append(got, j.endpoint)
		}
		slices.Sort(got)
		return slices.Equal(got, want), fmt.Sprintf("want %s's KUBE-SVC chain of %s:80 to jump to %v; jumps %v in:\n%s", node, clusterIP, want, seen.jumps, out)
	})
	return seen
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

// svcsIPVSUntil runs `ctl proxy-rules --node node1 --mode ipvs --service
// default/web` until the virtual server vip (ip:port) lists exactly the
// real servers want (ip:port, sorted), and returns what ctl printed.
func svcsIPVSUntil(t *testing.T, c *framework.LocalCluster, vip string, want []string) string {
	t.Helper()
	var out string
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		var code int
		code, out = svcsCtl(t, c, "proxy-rules", "--node", "node1", "--mode", "ipvs", "--service", "default/web")
		if code != 0 {
			return false, fmt.Sprintf("ctl proxy-rules --node node1 --mode ipvs exited %d:\n%s", code, out)
		}
		real := svcsIPVSRealServers(out, vip)
		return slices.Equal(real, want), fmt.Sprintf("want virtual server TCP %s with real servers %v; got %v in:\n%s", vip, want, real, out)
	})
	return out
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
