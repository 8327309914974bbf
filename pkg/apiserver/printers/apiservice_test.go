package printers

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

// TestAPIServiceCells: SERVICE is Local or namespace/name; AVAILABLE is
// True, False (Reason), or Unknown before the first check, as upstream's
// kube-aggregator prints them.
func TestAPIServiceCells(t *testing.T) {
	created := api.NewTime(testNow.Add(-90 * time.Minute))
	local := &api.APIService{ObjectMeta: api.ObjectMeta{Name: "v1.apps", CreationTimestamp: created},
		Status: api.APIServiceStatus{Conditions: []api.APIServiceCondition{{Type: api.APIServiceAvailable, Status: api.ConditionTrue, Reason: "Local"}}}}
	missing := &api.APIService{ObjectMeta: api.ObjectMeta{Name: "v1beta1.metrics.k8s.io", CreationTimestamp: created},
		Spec:   api.APIServiceSpec{Service: &api.ServiceReference{Namespace: "kube-system", Name: "metrics-server"}},
		Status: api.APIServiceStatus{Conditions: []api.APIServiceCondition{{Type: api.APIServiceAvailable, Status: api.ConditionFalse, Reason: "ServiceNotFound"}}}}
	unchecked := &api.APIService{ObjectMeta: api.ObjectMeta{Name: "v1.example.com", CreationTimestamp: created}}
	for _, tt := range []struct {
		obj  *api.APIService
		want [4]any
	}{
		{local, [4]any{"v1.apps", "Local", "True", "90m"}},
		{missing, [4]any{"v1beta1.metrics.k8s.io", "kube-system/metrics-server", "False (ServiceNotFound)", "90m"}},
		{unchecked, [4]any{"v1.example.com", "Local", "Unknown", "90m"}},
	} {
		if got := Cells(tt.obj, testNow); [4]any(got) != tt.want {
			t.Errorf("%s: cells %v, want %v", tt.obj.Name, got, tt.want)
		}
	}
}
