package apiserver

import (
	"testing"

	"kplane/pkg/api"
)

// An update that touches only what the garbage collector writes skips the
// escalation check; any other change (rules, labels) does not.
func TestOnlyGarbageCollectorFieldsChanged(t *testing.T) {
	old := &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: "r", ResourceVersion: "5"},
		Rules: []api.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}}

	gc := api.DeepCopy(old)
	gc.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "u1"}}
	gc.Finalizers = []string{"foregroundDeletion"}
	if !onlyGarbageCollectorFieldsChanged(gc, old) {
		t.Error("ownerReferences and finalizers only: want true")
	}

	rules := api.DeepCopy(old)
	rules.Rules[0].Verbs = []string{"get", "delete"}
	if onlyGarbageCollectorFieldsChanged(rules, old) {
		t.Error("changed rules: want false")
	}

	labelled := api.DeepCopy(old)
	labelled.Labels = map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true"}
	if onlyGarbageCollectorFieldsChanged(labelled, old) {
		t.Error("changed labels (which aggregation selects on): want false")
	}
}
