package keys

import "testing"

func TestObjectKeysFollowUpstreamLayout(t *testing.T) {
	cases := []struct {
		resource, namespace, name string
		want                      string
	}{
		{"configmaps", "default", "app", "/registry/configmaps/default/app"},
		{"deployments", "kube-system", "coredns", "/registry/deployments/kube-system/coredns"},
		{"nodes", "", "node1", "/registry/nodes/node1"},
	}
	for _, c := range cases {
		if got := Object(c.resource, c.namespace, c.name); got != c.want {
			t.Errorf("Object(%q, %q, %q) = %q, want %q", c.resource, c.namespace, c.name, got, c.want)
		}
	}
	if got := Prefix("pods", "ns1"); got != "/registry/pods/ns1/" {
		t.Errorf("Prefix(pods, ns1) = %q; a namespace prefix must end in / so ns10 is not under ns1", got)
	}
	if got := Prefix("pods", ""); got != "/registry/pods/" {
		t.Errorf("Prefix(pods, \"\") = %q, want /registry/pods/", got)
	}
	if got := Object(CustomResource("examples.kplane.dev", "websites"), "default", "hello"); got != "/registry/examples.kplane.dev/websites/default/hello" {
		t.Errorf("a custom resource's key = %q, want /registry/examples.kplane.dev/websites/default/hello (upstream's /registry/<group>/<plural>/)", got)
	}
}
