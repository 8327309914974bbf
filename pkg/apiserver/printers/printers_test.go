package printers

import (
	"testing"

	"kplane/pkg/api"
)

// zeroObjects has an empty object of every kind with a printer of its own.
// Printing them must not panic: the apiserver prints whatever was stored.
var zeroObjects = map[string]api.Object{
	"Pod":                       &api.Pod{},
	"Namespace":                 &api.Namespace{},
	"ComponentStatus":           &api.ComponentStatus{},
	"Node":                      &api.Node{},
	"Service":                   &api.Service{},
	"Endpoints":                 &api.Endpoints{},
	"ConfigMap":                 &api.ConfigMap{},
	"Secret":                    &api.Secret{},
	"ServiceAccount":            &api.ServiceAccount{},
	"PersistentVolume":          &api.PersistentVolume{},
	"PersistentVolumeClaim":     &api.PersistentVolumeClaim{},
	"ResourceQuota":             &api.ResourceQuota{},
	"Event":                     &api.Event{},
	"ReplicationController":     &api.ReplicationController{},
	"Deployment":                &api.Deployment{},
	"ReplicaSet":                &api.ReplicaSet{},
	"StatefulSet":               &api.StatefulSet{},
	"DaemonSet":                 &api.DaemonSet{},
	"ControllerRevision":        &api.ControllerRevision{},
	"Job":                       &api.Job{},
	"CronJob":                   &api.CronJob{},
	"HorizontalPodAutoscaler":   &api.HorizontalPodAutoscaler{},
	"Lease":                     &api.Lease{},
	"EndpointSlice":             &api.EndpointSlice{},
	"Ingress":                   &api.Ingress{},
	"IngressClass":              &api.IngressClass{},
	"NetworkPolicy":             &api.NetworkPolicy{},
	"PodDisruptionBudget":       &api.PodDisruptionBudget{},
	"RoleBinding":               &api.RoleBinding{},
	"ClusterRoleBinding":        &api.ClusterRoleBinding{},
	"StorageClass":              &api.StorageClass{},
	"PriorityClass":             &api.PriorityClass{},
	"APIService":                &api.APIService{},
	"CertificateSigningRequest": &api.CertificateSigningRequest{},
}

func TestEveryKindHasOneCellPerColumn(t *testing.T) {
	for kind := range columnsByKind {
		obj, ok := zeroObjects[kind]
		if !ok {
			t.Errorf("%s has columns but no zero object in this test", kind)
			continue
		}
		if got, want := len(Cells(obj, testNow)), len(Columns(kind)); got != want {
			t.Errorf("%s: %d cells for %d columns", kind, got, want)
		}
	}
	for kind, obj := range zeroObjects {
		if _, ok := columnsByKind[kind]; !ok {
			t.Errorf("%s is in this test but has no columns", kind)
		}
		// A kind that fell through to the default printer would give
		// exactly the default's two cells.
		if _, ok := columnsByKind[kind]; ok && len(Columns(kind)) != 2 && len(Cells(obj, testNow)) == 2 {
			t.Errorf("%s: Cells has no case for it and prints the default table", kind)
		}
	}
}

func TestColumnConventions(t *testing.T) {
	kinds := []string{"LimitRange"} // and one without a printer
	for kind := range columnsByKind {
		kinds = append(kinds, kind)
	}
	for _, kind := range kinds {
		names := 0
		for _, c := range Columns(kind) {
			if c.Format == "name" {
				names++
			}
			switch c.Type {
			case "string", "integer", "boolean", "date":
			default:
				t.Errorf("%s column %q: type %q is not one of Table's", kind, c.Name, c.Type)
			}
			if c.Priority != 0 && c.Priority != 1 {
				t.Errorf("%s column %q: priority %d", kind, c.Name, c.Priority)
			}
			if c.Description == "" {
				t.Errorf("%s column %q has no description", kind, c.Name)
			}
		}
		if names != 1 {
			t.Errorf("%s: %d columns of format name, want 1", kind, names)
		}
	}
}

func TestUnknownKindsGetTheDefaultTable(t *testing.T) {
	columns := Columns("LimitRange")
	if len(columns) != 2 || columns[0].Name != "Name" || columns[1].Name != "Created At" || columns[1].Type != "date" {
		t.Fatalf("Columns(LimitRange) = %+v, want Name and Created At", columns)
	}
	lr := &api.LimitRange{ObjectMeta: meta("limits", 0)}
	got := Cells(lr, testNow)
	if len(got) != 2 || got[0] != "limits" || got[1] != "2024-10-23T07:12:00Z" {
		t.Errorf("Cells(LimitRange) = %v", got)
	}
}

func TestColumnsReturnsACopy(t *testing.T) {
	Columns("Pod")[0].Name = "changed"
	if got := Columns("Pod")[0].Name; got != "Name" {
		t.Errorf("a caller's change leaked into the shared columns: first column is %q", got)
	}
}

func TestAgeOfUnsetTimestamp(t *testing.T) {
	if got := Cells(&api.ConfigMap{}, testNow)[2]; got != "<unknown>" {
		t.Errorf("AGE of an object without creationTimestamp = %v, want <unknown>", got)
	}
}

func TestFormatEndpoints(t *testing.T) {
	tests := []struct {
		name    string
		subsets []api.EndpointSubset
		want    string
	}{
		{"no subsets", nil, "<none>"},
		{
			name: "every address with every port, port by port",
			subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}},
				Ports: []api.EndpointPort{{Name: "http", Port: 80}, {Name: "https", Port: 443}}}},
			want: "10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...",
		},
		{
			name: "exactly three is not more",
			subsets: []api.EndpointSubset{
				{Addresses: []api.EndpointAddress{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}}, Ports: []api.EndpointPort{{Port: 80}}},
				{Addresses: []api.EndpointAddress{{IP: "10.0.0.3"}}, Ports: []api.EndpointPort{{Port: 8080}}}},
			want: "10.0.0.1:80,10.0.0.2:80,10.0.0.3:8080",
		},
		{
			name:    "IPv6 addresses in brackets",
			subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "fd00::1"}}, Ports: []api.EndpointPort{{Port: 80}}}},
			want:    "[fd00::1]:80",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatEndpoints(&api.Endpoints{Subsets: tt.subsets}); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSelectorCells(t *testing.T) {
	broken := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "Like"}}}
	empty := &api.LabelSelector{}
	tests := []struct {
		name     string
		selector *api.LabelSelector
		// ReplicaSets (and DaemonSets, Jobs, CronJobs) print through
		// FormatLabelSelector; Deployments convert the selector themselves.
		replicaSet, deployment string
	}{
		{"missing", nil, "<none>", ""},
		{"empty", empty, "<none>", ""},
		{"invalid", broken, "<error>", "<invalid>"},
		{"labels", &api.LabelSelector{MatchLabels: map[string]string{"b": "2", "a": "1"}}, "a=1,b=2", "a=1,b=2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := Cells(&api.ReplicaSet{Spec: api.ReplicaSetSpec{Selector: tt.selector}}, testNow)
			d := Cells(&api.Deployment{Spec: api.DeploymentSpec{Selector: tt.selector}}, testNow)
			if got := rs[len(rs)-1]; got != tt.replicaSet {
				t.Errorf("ReplicaSet SELECTOR = %q, want %q", got, tt.replicaSet)
			}
			if got := d[len(d)-1]; got != tt.deployment {
				t.Errorf("Deployment SELECTOR = %q, want %q", got, tt.deployment)
			}
		})
	}
}
