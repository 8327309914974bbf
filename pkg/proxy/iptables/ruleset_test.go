package iptables

import (
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/proxy/proxytest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestUpstreamClusterGolden compares the whole iptables-save output for
// upstream's TestOverallIPTablesRules cluster with testdata/upstream.golden.
// Its kube-proxy lines are upstream's expected lines, chain hashes
// included; what differs is said in the golden file's test: the built-in
// chains and their jumps (which iptables-save shows), MASQUERADE
// --random-fully (a kernel that has it) and no nfacct counters.
func TestUpstreamClusterGolden(t *testing.T) {
	got := Compute(proxytest.Upstream()).Save()
	golden := "testdata/upstream.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read %s (run with -update to write it): %v", golden, err)
	}
	if got != string(want) {
		t.Errorf("iptables-save output differs from %s:\n%s", golden, got)
	}
}

// TestUpstreamChainNames checks the hashes against upstream's expected
// output, line for line.
func TestUpstreamChainNames(t *testing.T) {
	save := Compute(proxytest.Upstream()).Save()
	for _, line := range []string{
		`-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O`,
		`-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80`,
		`-A KUBE-SERVICES -m comment --comment "ns5/svc5:p80 loadbalancer IP" -m tcp -p tcp -d 5.6.7.8 --dport 80 -j KUBE-FW-NUKIZ6OKUXPJNT4C`,
		`-A KUBE-EXT-GNZBNJ2PO5MGZ6GT -m comment --comment "pod traffic for ns2/svc2:p80 external destinations" -s 10.0.0.0/8 -j KUBE-SVC-GNZBNJ2PO5MGZ6GT`,
		`-A KUBE-SVC-NUKIZ6OKUXPJNT4C -m comment --comment "ns5/svc5:p80 -> 10.180.0.3:80" -m recent --name KUBE-SEP-I77PXRDZVX7PMWMN --rcheck --seconds 10800 --reap -j KUBE-SEP-I77PXRDZVX7PMWMN`,
		`-A KUBE-SEP-I77PXRDZVX7PMWMN -m comment --comment ns5/svc5:p80 -m recent --name KUBE-SEP-I77PXRDZVX7PMWMN --set -m tcp -p tcp -j DNAT --to-destination 10.180.0.3:80`,
		`-A KUBE-SERVICES -m comment --comment "ns6/svc6:p80 has no endpoints" -m tcp -p tcp -d 172.30.0.46 --dport 80 -j REJECT`,
		`-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns2/svc2:p80 has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 3001 -j DROP`,
		`-A KUBE-NODEPORTS -m comment --comment ns3/svc3:p80 -m tcp -p tcp --dport 3003 -j KUBE-EXT-X27LE4BHSL4DOUIK`,
		`-A KUBE-FW-NUKIZ6OKUXPJNT4C -m comment --comment "ns5/svc5:p80 loadbalancer IP" -s 203.0.113.0/25 -j KUBE-EXT-NUKIZ6OKUXPJNT4C`,
	} {
		if !strings.Contains(save, line+"\n") {
			t.Errorf("missing upstream line\n  %s", line)
		}
	}
}

func lines(save, prefix string) []string {
	var out []string
	for _, l := range strings.Split(save, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

func TestThreeReadyEndpointsSplitEvenly(t *testing.T) {
	st := proxytest.ThreeEndpoints()
	svc := ServiceChain(st.Ports[0])
	got := lines(Compute(st).Save(), "-A "+svc+" ")
	want := []string{
		`-A ` + svc + ` -m comment --comment "default/web:http cluster IP" -m tcp -p tcp -d 10.96.0.20 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ`,
		`-A ` + svc + ` -m comment --comment "default/web:http -> 10.244.1.2:8080" -m statistic --mode random --probability 0.3333333333 -j ` + EndpointChain(st.Ports[0], st.Ports[0].Endpoints[0]),
		`-A ` + svc + ` -m comment --comment "default/web:http -> 10.244.1.3:8080" -m statistic --mode random --probability 0.5000000000 -j ` + EndpointChain(st.Ports[0], st.Ports[0].Endpoints[1]),
		`-A ` + svc + ` -m comment --comment "default/web:http -> 10.244.2.2:8080" -j ` + EndpointChain(st.Ports[0], st.Ports[0].Endpoints[2]),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("KUBE-SVC chain:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestUnreadyEndpointHasNoChain(t *testing.T) {
	save := Compute(proxytest.ThreeEndpoints()).Save()
	if strings.Contains(save, "10.244.2.3") {
		t.Errorf("the unready endpoint 10.244.2.3 appears in the rules:\n%s", save)
	}
	if n := len(lines(save, ":KUBE-SEP-")); n != 3 {
		t.Errorf("%d KUBE-SEP chains, want 3 (one per ready endpoint)", n)
	}
}

func TestTerminatingEndpointsUsedOnlyWhenNoneReady(t *testing.T) {
	svc := []*api.Service{proxytest.Service("default", "web", "10.96.0.20", "", 80)}
	st := proxytest.State(svc, proxytest.Slice("default", "web", "", 80,
		proxytest.Backend{IP: "10.244.1.2", Terminating: true},
		proxytest.Backend{IP: "10.244.1.3", NotReady: true}))
	save := Compute(st).Save()
	if !strings.Contains(save, "--to-destination 10.244.1.2:80") || strings.Contains(save, "10.244.1.3") {
		t.Errorf("want only the serving-terminating endpoint 10.244.1.2 (no ready one exists):\n%s", save)
	}
	// With a ready endpoint the terminating one is left out.
	st = proxytest.State(svc, proxytest.Slice("default", "web", "", 80,
		proxytest.Backend{IP: "10.244.1.2", Terminating: true}, proxytest.Backend{IP: "10.244.1.4"}))
	if save := Compute(st).Save(); strings.Contains(save, "10.244.1.2") {
		t.Errorf("a terminating endpoint is used although 10.244.1.4 is ready:\n%s", save)
	}
}

func TestNoEndpointsRejects(t *testing.T) {
	svc := proxytest.Service("default", "empty", "10.96.0.30", "http", 80, func(s *api.Service) {
		s.Spec.Type = api.ServiceTypeNodePort
		s.Spec.Ports[0].NodePort = 30080
	})
	save := Compute(proxytest.State([]*api.Service{svc})).Save()
	for _, line := range []string{
		`-A KUBE-SERVICES -m comment --comment "default/empty:http has no endpoints" -m tcp -p tcp -d 10.96.0.30 --dport 80 -j REJECT`,
		`-A KUBE-EXTERNAL-SERVICES -m comment --comment "default/empty:http has no endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j REJECT`,
	} {
		if !strings.Contains(save, line) {
			t.Errorf("missing %s", line)
		}
	}
	if strings.Contains(save, "KUBE-SVC-") || strings.Contains(save, "KUBE-EXT-") {
		t.Errorf("a Service without endpoints has nat chains:\n%s", save)
	}
}

func TestInternalTrafficPolicyLocal(t *testing.T) {
	svc := proxytest.Service("default", "web", "10.96.0.20", "http", 80, func(s *api.Service) {
		s.Spec.InternalTrafficPolicy = new(api.ServiceInternalTrafficPolicyLocal)
	})
	slice := proxytest.Slice("default", "web", "http", 80,
		proxytest.Backend{IP: "10.244.1.2", Node: proxytest.NodeName}, proxytest.Backend{IP: "10.244.2.2", Node: "other"})
	st := proxytest.State([]*api.Service{svc}, slice)
	save := Compute(st).Save()
	svl := LocalChain(st.Ports[0])
	if !strings.Contains(save, `-A KUBE-SERVICES -m comment --comment "default/web:http cluster IP" -m tcp -p tcp -d 10.96.0.20 --dport 80 -j `+svl) {
		t.Errorf("the ClusterIP does not go to %s:\n%s", svl, save)
	}
	if got := lines(save, "-A "+svl+" -m comment --comment \"default/web:http ->"); len(got) != 1 || !strings.HasSuffix(got[0], EndpointChain(st.Ports[0], st.Ports[0].Endpoints[0])) {
		t.Errorf("%s should hold the local endpoint only: %q", svl, got)
	}
	// Without a local endpoint the ClusterIP drops.
	st = proxytest.State([]*api.Service{svc}, proxytest.Slice("default", "web", "http", 80, proxytest.Backend{IP: "10.244.2.2", Node: "other"}))
	if save := Compute(st).Save(); !strings.Contains(save, `"default/web:http has no local endpoints" -m tcp -p tcp -d 10.96.0.20 --dport 80 -j DROP`) {
		t.Errorf("no DROP for a Local Service without local endpoints:\n%s", save)
	}
}

func TestExternalTrafficPolicyLocalUsesSVL(t *testing.T) {
	svc := proxytest.Service("default", "lb", "10.96.0.40", "http", 80, func(s *api.Service) {
		s.Spec.Type = api.ServiceTypeLoadBalancer
		s.Spec.ExternalTrafficPolicy = api.ServiceExternalTrafficPolicyLocal
		s.Spec.Ports[0].NodePort = 30081
		s.Status.LoadBalancer.Ingress = []api.LoadBalancerIngress{{IP: "192.0.2.10"}}
	})
	st := proxytest.State([]*api.Service{svc}, proxytest.Slice("default", "lb", "http", 80,
		proxytest.Backend{IP: "10.244.1.2", Node: proxytest.NodeName}, proxytest.Backend{IP: "10.244.2.2", Node: "other"}))
	p := st.Ports[0]
	save := Compute(st).Save()
	for _, line := range []string{
		`-A KUBE-SERVICES -m comment --comment "default/lb:http loadbalancer IP" -m tcp -p tcp -d 192.0.2.10 --dport 80 -j ` + ExternalChain(p),
		`-A KUBE-NODEPORTS -m comment --comment default/lb:http -m tcp -p tcp --dport 30081 -j ` + ExternalChain(p),
		`-A ` + ExternalChain(p) + ` -j ` + LocalChain(p),
		`-A ` + LocalChain(p) + ` -m comment --comment "default/lb:http -> 10.244.1.2:80" -j ` + EndpointChain(p, p.Endpoints[0]),
	} {
		if !strings.Contains(save, line+"\n") {
			t.Errorf("missing %s\nin:\n%s", line, save)
		}
	}
	// The ClusterIP still reaches both endpoints through KUBE-SVC.
	if got := lines(save, "-A "+ServiceChain(p)+" -m comment --comment \"default/lb:http ->"); len(got) != 2 {
		t.Errorf("KUBE-SVC has %d endpoint rules, want 2", len(got))
	}
}

func TestSaveServiceKeepsOnlyThatService(t *testing.T) {
	rs := Compute(proxytest.Upstream())
	out := rs.SaveService("ns4", "svc4")
	if !strings.Contains(out, "KUBE-SVC-4SW47YFZTEDKD3PK") || !strings.Contains(out, "KUBE-SEP-UKSFD7AGPMPPLUHC") {
		t.Errorf("ns4/svc4's chains missing:\n%s", out)
	}
	if strings.Contains(out, "ns1/svc1") || strings.Contains(out, "KUBE-POSTROUTING") || strings.Contains(out, "*filter") {
		t.Errorf("other rules kept:\n%s", out)
	}
}

// Above 1 000 endpoints upstream drops the comments of the per-endpoint
// rules (largeClusterMode); the others keep theirs.
func TestLargeClusterDropsEndpointComments(t *testing.T) {
	var services []*api.Service
	var slices []*api.EndpointSlice
	for i := range 101 {
		name := "svc" + string(rune('a'+i/26)) + string(rune('a'+i%26))
		services = append(services, proxytest.Service("big", name, "10.96.1."+strconv.Itoa(i+1), "", 80))
		var backends []proxytest.Backend
		for j := range 10 {
			backends = append(backends, proxytest.Backend{IP: "10.244." + strconv.Itoa(j) + "." + strconv.Itoa(i+1)})
		}
		slices = append(slices, proxytest.Slice("big", name, "", 80, backends...))
	}
	st := proxytest.State(services, slices...)
	p := st.Ports[0]
	save := Compute(st).Save()
	for _, want := range []string{
		"-A " + EndpointChain(p, p.Endpoints[0]) + " -s " + p.Endpoints[0].IP + " -j KUBE-MARK-MASQ\n",
		"-A " + EndpointChain(p, p.Endpoints[0]) + " -m tcp -p tcp -j DNAT --to-destination " + p.Endpoints[0].String() + "\n",
		"-A " + ServiceChain(p) + " -m statistic --mode random --probability 0.1000000000 -j " + EndpointChain(p, p.Endpoints[0]) + "\n",
		`-A KUBE-SERVICES -m comment --comment "big/svcaa cluster IP"`,
	} {
		if !strings.Contains(save, want) {
			t.Errorf("1010 endpoints: missing %q", want)
		}
	}
	if small := Compute(proxytest.ThreeEndpoints()).Save(); !strings.Contains(small, `--comment "default/web:http -> 10.244.1.2:8080"`) {
		t.Errorf("a small cluster lost its endpoint comments")
	}
}
