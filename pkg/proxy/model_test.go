package proxy_test

import (
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/proxy"
	"kplane/pkg/proxy/proxytest"
)

func ips(eps []proxy.Endpoint) []string {
	out := []string{}
	for _, e := range eps {
		out = append(out, e.IP)
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBuildSkipsHeadlessAndExternalNameServices(t *testing.T) {
	headless := proxytest.Service("default", "headless", api.ClusterIPNone, "http", 80)
	external := proxytest.Service("default", "ext", "", "http", 80, func(s *api.Service) { s.Spec.Type = api.ServiceTypeExternalName })
	st := proxytest.State([]*api.Service{headless, external, proxytest.Service("default", "web", "10.96.0.20", "", 80)})
	if len(st.Ports) != 1 || st.Ports[0].Name.String() != "default/web" {
		t.Errorf("ports %+v, want only default/web", st.Ports)
	}
}

func TestEndpointsMatchPortByNameAndAreSorted(t *testing.T) {
	svc := proxytest.Service("default", "web", "10.96.0.20", "http", 80)
	other := proxytest.Slice("default", "web", "metrics", 9090, proxytest.Backend{IP: "10.244.9.9"})
	slice := proxytest.Slice("default", "web", "http", 8080,
		proxytest.Backend{IP: "10.244.2.2"}, proxytest.Backend{IP: "10.244.1.10"}, proxytest.Backend{IP: "10.244.1.2"})
	dup := proxytest.Slice("default", "web", "http", 8080, proxytest.Backend{IP: "10.244.1.2"})
	p := proxytest.State([]*api.Service{svc}, other, slice, dup).Ports[0]
	// Sorted as strings, as upstream sorts endpoints; the duplicate counts once.
	if got := ips(p.Endpoints); !equal(got, []string{"10.244.1.10", "10.244.1.2", "10.244.2.2"}) {
		t.Errorf("endpoints %v", got)
	}
	if p.Endpoints[0].Port != 8080 {
		t.Errorf("endpoint port %d, want the slice's 8080", p.Endpoints[0].Port)
	}
}

func TestCategorize(t *testing.T) {
	local := func(s *api.Service) { s.Spec.InternalTrafficPolicy = new(api.ServiceInternalTrafficPolicyLocal) }
	for _, tc := range []struct {
		name              string
		tweak             func(*api.Service)
		backends          []proxytest.Backend
		cluster, localEps []string
		reachable         []string
		hasEndpoints      bool
	}{
		{"ready only", nil,
			[]proxytest.Backend{{IP: "10.0.0.1"}, {IP: "10.0.0.2", NotReady: true}, {IP: "10.0.0.3", Terminating: true}},
			[]string{"10.0.0.1"}, []string{}, []string{"10.0.0.1"}, true},
		{"serving-terminating when none ready", nil,
			[]proxytest.Backend{{IP: "10.0.0.2", NotReady: true}, {IP: "10.0.0.3", Terminating: true}},
			[]string{"10.0.0.3"}, []string{}, []string{"10.0.0.3"}, true},
		{"nothing usable", nil,
			[]proxytest.Backend{{IP: "10.0.0.2", NotReady: true}},
			[]string{}, []string{}, []string{}, false},
		{"internal Local: this node's only", local,
			[]proxytest.Backend{{IP: "10.0.0.1", Node: proxytest.NodeName}, {IP: "10.0.0.2", Node: "other"}},
			[]string{}, []string{"10.0.0.1"}, []string{"10.0.0.1"}, true},
		{"internal Local without local endpoints still has endpoints elsewhere", local,
			[]proxytest.Backend{{IP: "10.0.0.2", Node: "other"}},
			[]string{}, []string{}, []string{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := proxytest.Service("default", "web", "10.96.0.20", "", 80)
			if tc.tweak != nil {
				tc.tweak(svc)
			}
			p := proxytest.State([]*api.Service{svc}, proxytest.Slice("default", "web", "", 80, tc.backends...)).Ports[0]
			if !equal(ips(p.ClusterEndpoints), tc.cluster) || !equal(ips(p.LocalEndpoints), tc.localEps) ||
				!equal(ips(p.Reachable), tc.reachable) || p.HasEndpoints != tc.hasEndpoints {
				t.Errorf("cluster %v local %v reachable %v has %v; want %v %v %v %v", ips(p.ClusterEndpoints), ips(p.LocalEndpoints),
					ips(p.Reachable), p.HasEndpoints, tc.cluster, tc.localEps, tc.reachable, tc.hasEndpoints)
			}
		})
	}
}
