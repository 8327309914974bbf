package rootcacertpublisher

import (
	"maps"
	"testing"

	"kplane/pkg/api"
)

const testCA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

// TestRepair: only the data and the description annotation are compared
// and set; whatever else a user put on the ConfigMap stays.
func TestRepair(t *testing.T) {
	right := func() *api.ConfigMap { return desired("team-a", testCA) }
	tests := []struct {
		name        string
		mutate      func(cm *api.ConfigMap)
		wantChanged bool
	}{
		{"right as it is", func(cm *api.ConfigMap) {}, false},
		{"extra label and annotation are fine", func(cm *api.ConfigMap) {
			cm.Labels = map[string]string{"team": "a"}
			cm.Annotations["note"] = "mine"
		}, false},
		{"certificate changed", func(cm *api.ConfigMap) { cm.Data[api.RootCAConfigMapKey] = "forged" }, true},
		{"certificate removed", func(cm *api.ConfigMap) { cm.Data = nil }, true},
		{"extra data key", func(cm *api.ConfigMap) { cm.Data["extra"] = "x" }, true},
		{"description removed", func(cm *api.ConfigMap) { cm.Annotations = nil }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			current := right()
			tt.mutate(current)
			before := current.Annotations["note"]
			got, changed := repair(current, testCA)
			if changed != tt.wantChanged {
				t.Fatalf("changed = %v, want %v", changed, tt.wantChanged)
			}
			if !maps.Equal(got.Data, map[string]string{api.RootCAConfigMapKey: testCA}) {
				t.Errorf("data = %v", got.Data)
			}
			if got.Annotations[DescriptionAnnotation] != Description || got.Annotations["note"] != before {
				t.Errorf("annotations = %v", got.Annotations)
			}
			if tt.wantChanged && got == current {
				t.Error("repair changed the cached object in place")
			}
		})
	}
}
