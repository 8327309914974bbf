package ipvs

import (
	"strings"
	"testing"

	"kplane/pkg/proxy/proxytest"
)

func TestThreeRealServers(t *testing.T) {
	got := List(Compute(proxytest.ThreeEndpoints()))
	want := `IP Virtual Server version 1.2.1 (size=4096)
Prot LocalAddress:Port Scheduler Flags
  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn
TCP  10.96.0.20:80 rr
  -> 10.244.1.2:8080              Masq    1      0          0
  -> 10.244.1.3:8080              Masq    1      0          0
  -> 10.244.2.2:8080              Masq    1      0          0
`
	if got != want {
		t.Errorf("ipvsadm -Ln:\n%s\nwant:\n%s", got, want)
	}
}

func TestVirtualServersPerAddress(t *testing.T) {
	out := List(Compute(proxytest.Upstream()))
	for _, want := range []string{
		// ClientIP affinity is persistence.
		"TCP  172.30.0.45:80 rr persistent 10800\n  -> 10.180.0.3:80",
		// NodePort on the node's address; load-balancer and external IPs.
		"TCP  192.168.0.2:3003 rr\n  -> 10.180.0.3:80",
		"TCP  5.6.7.8:80 rr persistent 10800\n",
		"TCP  192.168.99.33:80 rr\n  -> 10.180.0.4:80",
		// Local external policy without a local endpoint: no real server.
		"TCP  1.2.3.4:80 rr\nTCP",
		// No endpoints: a virtual server without real servers.
		"TCP  172.30.0.46:80 rr\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "\r") || strings.Contains(out, " \n") {
		t.Errorf("trailing blanks:\n%q", out)
	}
	if n := len(ForService(Compute(proxytest.Upstream()), "ns2", "svc2")); n != 4 {
		t.Errorf("ns2/svc2 has %d virtual servers, want 4 (ClusterIP, external IP, LB IP, NodePort)", n)
	}
}
