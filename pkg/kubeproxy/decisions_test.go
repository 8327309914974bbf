package kubeproxy

import (
	"strings"
	"testing"

	"kplane/pkg/proxy/proxytest"
)

func TestSummarizeServiceSaysWhereConnectionsGoAndWhoIsLeftOut(t *testing.T) {
	s := summarizeServices(proxytest.ThreeEndpoints())["default/web"]
	if !strings.HasPrefix(s.message, "default/web:http at 10.96.0.20:80/TCP → KUBE-SVC-") || !strings.HasSuffix(s.message, ": 3 endpoints, 1/3 each") {
		t.Errorf("message %q", s.message)
	}
	want := []string{
		"10.244.1.2:8080 (pod web-a on node1)  probability 0.3333333333",
		"10.244.1.3:8080 (pod web-b on node1)  probability 0.5000000000",
		"10.244.2.2:8080 (pod web-c on node2)  the rest",
		"left out: 10.244.2.3:8080 (pod web-d on node2): not ready",
	}
	if len(s.lines) != len(want) {
		t.Fatalf("lines %q", s.lines)
	}
	for i := range want {
		if !strings.HasSuffix(s.lines[i], want[i]) {
			t.Errorf("line %d %q, want it to end with %q", i, s.lines[i], want[i])
		}
	}
	if s.endpoints != 3 {
		t.Errorf("endpoints %d", s.endpoints)
	}
}

func TestSummaryUnchangedWhenRulesAre(t *testing.T) {
	a := summarizeServices(proxytest.ThreeEndpoints())
	b := summarizeServices(proxytest.ThreeEndpoints())
	if a["default/web"].fingerprint != b["default/web"].fingerprint {
		t.Errorf("the same state summarizes differently")
	}
	noEndpoints := summarizeServices(proxytest.Upstream())["ns6/svc6"]
	if !strings.HasSuffix(noEndpoints.message, "new connections rejected (no endpoints)") {
		t.Errorf("ns6/svc6: %q", noEndpoints.message)
	}
}
