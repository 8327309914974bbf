package proxy_test

import (
	"fmt"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/proxy"
	"kplane/pkg/proxy/iptables"
	"kplane/pkg/proxy/ipvs"
	"kplane/pkg/proxy/nftables"
	"kplane/pkg/proxy/proxytest"
)

// bigCluster is 1 000 ClusterIP Services of 10 ready endpoints each,
// spread over 10 nodes: issue 14's performance budget (a sync under 1 s).
func bigCluster() ([]*api.Service, []*api.EndpointSlice) {
	var services []*api.Service
	var slices []*api.EndpointSlice
	for i := range 1000 {
		name := fmt.Sprintf("svc-%04d", i)
		services = append(services, proxytest.Service("bench", name, fmt.Sprintf("10.96.%d.%d", i/250, i%250+1), "http", 80))
		var backends []proxytest.Backend
		for j := range 10 {
			backends = append(backends, proxytest.Backend{IP: fmt.Sprintf("10.244.%d.%d", j, i%250+1), Node: fmt.Sprintf("node%d", j), Pod: fmt.Sprintf("%s-%d", name, j)})
		}
		slices = append(slices, proxytest.Slice("bench", name, "http", 8080, backends...))
	}
	return services, slices
}

var node = proxy.Node{Name: "node1", ClusterCIDR: "10.244.0.0/16", ServiceCIDR: "10.96.0.0/12", IPs: []string{"127.0.0.1"}}

// BenchmarkSync1000Services10Endpoints is one kube-proxy sync: the model
// from the caches' objects, the iptables rules, and their iptables-save
// text (what upstream would hand to iptables-restore).
func BenchmarkSync1000Services10Endpoints(b *testing.B) {
	services, slices := bigCluster()
	var rules int
	for b.Loop() {
		st := proxy.Build(node, services, slices)
		rs := iptables.Compute(st)
		rules = rs.RuleCount()
		_ = rs.Save()
	}
	b.ReportMetric(float64(rules), "rules")
}

// BenchmarkNFTables1000Services10Endpoints renders the nftables view of
// the same cluster (done on request, from the sync's model).
func BenchmarkNFTables1000Services10Endpoints(b *testing.B) {
	services, slices := bigCluster()
	st := proxy.Build(node, services, slices)
	for b.Loop() {
		_ = nftables.Compute(st).List()
	}
}

// BenchmarkIPVS1000Services10Endpoints renders the IPVS view.
func BenchmarkIPVS1000Services10Endpoints(b *testing.B) {
	services, slices := bigCluster()
	st := proxy.Build(node, services, slices)
	for b.Loop() {
		_ = ipvs.List(ipvs.Compute(st))
	}
}
