package nftables

import (
	"flag"
	"os"
	"strings"
	"testing"

	"kplane/pkg/proxy/proxytest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestUpstreamClusterGolden compares `nft list ruleset` for upstream's
// TestOverallNFTablesRules cluster with testdata/upstream.golden.
func TestUpstreamClusterGolden(t *testing.T) {
	got := Compute(proxytest.Upstream()).List()
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
		t.Errorf("nft list ruleset differs from %s:\n%s", golden, got)
	}
}

// TestUpstreamNames checks chain names and rules against upstream's
// expected nftables output.
func TestUpstreamNames(t *testing.T) {
	out := Compute(proxytest.Upstream()).List()
	for _, want := range []string{
		"chain service-ULMVA6XW-ns1/svc1/tcp/p80 {\n\t\tip daddr 172.30.0.41 ip saddr != 10.0.0.0/8 jump mark-for-masquerade\n\t\tnumgen random mod 1 vmap { 0 : goto endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 }\n",
		"chain endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 {\n\t\tip saddr 10.180.0.1 jump mark-for-masquerade\n\t\tmeta l4proto tcp dnat to 10.180.0.1:80\n",
		"numgen random mod 2 vmap { 0 : goto endpoint-UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80, 1 : goto endpoint-5RFCDDV7-ns4/svc4/tcp/p80__10.180.0.5/80 }",
		"ip saddr @affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 goto endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80",
		"update @affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 { ip saddr }",
		"ip saddr 10.0.0.0/8 goto service-42NFTM6N-ns2/svc2/tcp/p80 comment \"short-circuit pod traffic\"",
		"ip saddr != { 203.0.113.0/25 } drop",
		`172.30.0.46 . tcp . 80 comment "ns6/svc6:p80" : goto reject-chain`,
		"172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80",
		"tcp . 3001 : goto external-42NFTM6N-ns2/svc2/tcp/p80",
		"5.6.7.8 . tcp . 80 : goto external-HVFWP5L3-ns5/svc5/tcp/p80",
		"5.6.7.8 . tcp . 80 : goto firewall-HVFWP5L3-ns5/svc5/tcp/p80",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing\n%s", want)
		}
	}
}

func TestThreeEndpointsDispatch(t *testing.T) {
	st := proxytest.ThreeEndpoints()
	p := st.Ports[0]
	out := Compute(st).List()
	want := "numgen random mod 3 vmap { 0 : goto " + EndpointChain(p, p.Endpoints[0]) + ", 1 : goto " + EndpointChain(p, p.Endpoints[1]) + ", 2 : goto " + EndpointChain(p, p.Endpoints[2]) + " }"
	if !strings.Contains(out, want) {
		t.Errorf("missing dispatch %s in\n%s", want, out)
	}
	if strings.Contains(out, "10.244.2.3") {
		t.Errorf("the unready endpoint appears:\n%s", out)
	}
	only := Compute(st).ListService("default", "web")
	if !strings.Contains(only, want) || strings.Contains(only, "chain services") {
		t.Errorf("ListService default/web:\n%s", only)
	}
}
