package iptables

import (
	"math/rand/v2"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/proxy/proxytest"
)

func newWalker(seed uint64, now *time.Time) *Walker {
	r := rand.New(rand.NewPCG(seed, seed))
	return &Walker{Recent: NewRecentLists(), Random: r.Float64, Now: func() time.Time { return *now }}
}

func TestWalkReachesEveryReadyEndpointEvenly(t *testing.T) {
	st := proxytest.ThreeEndpoints()
	rs := Compute(st)
	now := time.Unix(1000, 0)
	w := newWalker(1, &now)
	counts := map[string]int{}
	const asks = 3000
	for i := range asks {
		v, err := w.Walk(rs, Packet{Source: "10.244.1.9", Destination: "10.96.0.20", Port: 80, Protocol: api.ProtocolTCP})
		if err != nil {
			t.Fatal(err)
		}
		if v.Target != "DNAT" {
			t.Fatalf("ask %d: verdict %+v, want DNAT", i, v)
		}
		counts[v.Destination]++
		if len(v.Chains) != 3 || v.Chains[0] != ChainServices || v.Chains[1] != ServiceChain(st.Ports[0]) {
			t.Fatalf("chains %q, want KUBE-SERVICES, %s, a KUBE-SEP", v.Chains, ServiceChain(st.Ports[0]))
		}
	}
	for _, dst := range []string{"10.244.1.2:8080", "10.244.1.3:8080", "10.244.2.2:8080"} {
		// Each endpoint should get a third: 1000 ± a generous margin.
		if c := counts[dst]; c < 800 || c > 1200 {
			t.Errorf("%s chosen %d times of %d, want about a third; all: %v", dst, c, asks, counts)
		}
	}
	if counts["10.244.2.3:8080"] != 0 {
		t.Errorf("the unready endpoint was chosen")
	}
}

func TestWalkSessionAffinitySticksUntilTimeout(t *testing.T) {
	svc := proxytest.Service("default", "web", "10.96.0.20", "http", 80, func(s *api.Service) {
		s.Spec.SessionAffinity = api.ServiceAffinityClientIP
		s.Spec.SessionAffinityConfig = &api.SessionAffinityConfig{ClientIP: &api.ClientIPConfig{TimeoutSeconds: new(int32(60))}}
	})
	st := proxytest.State([]*api.Service{svc}, proxytest.Slice("default", "web", "http", 80,
		proxytest.Backend{IP: "10.244.1.2"}, proxytest.Backend{IP: "10.244.1.3"}, proxytest.Backend{IP: "10.244.2.2"}))
	rs := Compute(st)
	now := time.Unix(1000, 0)
	w := newWalker(7, &now)
	ask := func(src string) string {
		v, err := w.Walk(rs, Packet{Source: src, Destination: "10.96.0.20", Port: 80, Protocol: api.ProtocolTCP})
		if err != nil || v.Target != "DNAT" {
			t.Fatalf("walk: %+v, %v", v, err)
		}
		return v.Destination
	}
	first := ask("10.244.1.9")
	for range 50 {
		if got := ask("10.244.1.9"); got != first {
			t.Fatalf("affinity broken: first %s, then %s", first, got)
		}
	}
	// Another client is placed on its own.
	seen := map[string]bool{}
	for i := range 60 {
		seen[ask("10.244.3."+string(rune('0'+i%10)))] = true
	}
	if len(seen) < 2 {
		t.Errorf("other clients all went to %v", seen)
	}
	// After the timeout the client is placed afresh (and may move).
	now = now.Add(61 * time.Second)
	moved := false
	for range 50 {
		now = now.Add(61 * time.Second)
		if ask("10.244.1.9") != first {
			moved = true
			break
		}
	}
	if !moved {
		t.Errorf("after the affinity timeout the client never left %s", first)
	}
}

func TestWalkNoEndpointsRejectsAndUnknownFallsThrough(t *testing.T) {
	st := proxytest.Upstream()
	rs := Compute(st)
	now := time.Unix(0, 0)
	w := newWalker(3, &now)
	v, err := w.Walk(rs, Packet{Source: "10.0.0.2", Destination: "172.30.0.46", Port: 80, Protocol: api.ProtocolTCP})
	if err != nil || v.Target != "REJECT" || len(v.Chains) != 1 || v.Chains[0] != ChainServices {
		t.Errorf("no-endpoint Service: %+v, %v; want REJECT in filter KUBE-SERVICES", v, err)
	}
	v, err = w.Walk(rs, Packet{Source: "10.0.0.2", Destination: "172.30.0.99", Port: 80, Protocol: api.ProtocolTCP})
	if err != nil || v.Target != "" {
		t.Errorf("unknown address: %+v, %v; want no verdict", v, err)
	}
	// A load-balancer IP goes through the firewall and external chains.
	v, err = w.Walk(rs, Packet{Source: "203.0.113.5", Destination: "5.6.7.8", Port: 80, Protocol: api.ProtocolTCP})
	want := []string{ChainServices, "KUBE-FW-NUKIZ6OKUXPJNT4C", "KUBE-EXT-NUKIZ6OKUXPJNT4C", "KUBE-SVC-NUKIZ6OKUXPJNT4C", "KUBE-SEP-I77PXRDZVX7PMWMN"}
	if err != nil || v.Destination != "10.180.0.3:80" || len(v.Chains) != len(want) {
		t.Fatalf("LB IP from an allowed range: %+v, %v", v, err)
	}
	for i := range want {
		if v.Chains[i] != want[i] {
			t.Errorf("chains %q, want %q", v.Chains, want)
		}
	}
	// From outside the source ranges KUBE-FW ends without a verdict and
	// the filter table drops it.
	v, _ = w.Walk(rs, Packet{Source: "198.51.100.1", Destination: "5.6.7.8", Port: 80, Protocol: api.ProtocolTCP})
	if v.Target != "DROP" {
		t.Errorf("LB IP from outside the source ranges: %+v, want DROP", v)
	}
}
