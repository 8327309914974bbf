package quota

import (
	"testing"

	"kplane/pkg/api"
)

// BenchmarkCheckRequest is the cost quota admission adds to a pod create in
// a namespace with a few quotas (the etcd reads and writes aside).
func BenchmarkCheckRequest(b *testing.B) {
	quotas := []*api.ResourceQuota{
		enforced("pods", list("pods", "100"), list("pods", "10")),
		enforced("compute", list("requests.cpu", "10", "requests.memory", "10Gi", "limits.cpu", "20", "limits.memory", "20Gi"),
			list("requests.cpu", "1", "requests.memory", "1Gi", "limits.cpu", "2", "limits.memory", "2Gi")),
		enforced("objects", list("count/deployments.apps", "10", "configmaps", "10"), list("count/deployments.apps", "1", "configmaps", "1")),
	}
	p := pod("web", container("app", list("cpu", "100m", "memory", "64Mi"), list("cpu", "200m", "memory", "128Mi")))
	req := Request{Operation: Create, Object: p, Now: now}
	e := NewPodEvaluator()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CheckRequest(quotas, e, req); err != nil {
			b.Fatal(err)
		}
	}
}
