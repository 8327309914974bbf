package timeline

import "testing"

// TestEtcdKeyFollowsTheApiserversLayout: the state of a write is looked
// up under the key the apiserver stored it at, for built-in kinds (with
// and without a group), custom resources and CRDs.
func TestEtcdKeyFollowsTheApiserversLayout(t *testing.T) {
	for _, c := range []struct{ resource, key, want string }{
		{"pods", "default/web-1", "/registry/pods/default/web-1"},
		{"nodes", "node1", "/registry/nodes/node1"},
		{"deployments.apps", "default/web", "/registry/deployments/default/web"},
		{"leases.coordination.k8s.io", "kube-system/kube-scheduler", "/registry/leases/kube-system/kube-scheduler"},
		{"websites.examples.kplane.dev", "default/blog", "/registry/examples.kplane.dev/websites/default/blog"},
		{"clusterthings.stable.example.com", "one", "/registry/stable.example.com/clusterthings/one"},
		{"customresourcedefinitions.apiextensions.k8s.io", "websites.examples.kplane.dev", "/registry/apiextensions.k8s.io/customresourcedefinitions/websites.examples.kplane.dev"},
	} {
		if got := etcdKey(c.resource, c.key); got != c.want {
			t.Errorf("etcdKey(%q, %q) = %q, want %q", c.resource, c.key, got, c.want)
		}
	}
}
