package apiserver

import (
	"reflect"
	"sort"
	"testing"
)

func TestForbiddenNodeLabels(t *testing.T) {
	keys := []string{
		// A kubelet's own labels.
		"kubernetes.io/hostname", "kubernetes.io/os", "beta.kubernetes.io/arch",
		"topology.kubernetes.io/zone", "node.kubernetes.io/instance-type",
		"node.kubernetes.io/exclude-from-external-load-balancers", "kubelet.kubernetes.io/x", "a.node.kubernetes.io/y",
		// Anyone's labels.
		"example.com/rack", "plain",
		// Not a kubelet's to set.
		"node-restriction.kubernetes.io/trusted", "team.node-restriction.kubernetes.io/x",
		"node-role.kubernetes.io/control-plane", "kubernetes.io/role", "k8s.io/x", "sub.k8s.io/y",
	}
	got := forbiddenNodeLabels(keys)
	want := []string{"k8s.io/x", "kubernetes.io/role", "node-restriction.kubernetes.io/trusted",
		"node-role.kubernetes.io/control-plane", "sub.k8s.io/y", "team.node-restriction.kubernetes.io/x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("forbiddenNodeLabels = %v, want %v", got, want)
	}
}

func TestModifiedLabels(t *testing.T) {
	got := modifiedLabels(map[string]string{"same": "1", "changed": "2", "added": "3"}, map[string]string{"same": "1", "changed": "x", "removed": "4"})
	sort.Strings(got)
	if want := []string{"added", "changed", "removed"}; !reflect.DeepEqual(got, want) {
		t.Errorf("modifiedLabels = %v, want %v", got, want)
	}
}
