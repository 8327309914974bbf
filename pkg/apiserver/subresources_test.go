package apiserver_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/test/framework"
)

// refusal is the part of a 422 Status a client acts on.
type refusal struct {
	code    int
	reason  string
	message string
	fields  []string
}

// refusalOf decodes r as a Status.
func refusalOf(t *testing.T, r framework.Response) refusal {
	t.Helper()
	var status api.Status
	if err := json.Unmarshal(r.Body, &status); err != nil {
		t.Fatalf("%d %s: not a Status: %v", r.Code, r.Body, err)
	}
	got := refusal{code: r.Code, reason: string(status.Reason), message: status.Message}
	if status.Details != nil {
		for _, c := range status.Details.Causes {
			got.fields = append(got.fields, c.Field)
		}
	}
	return got
}

func (r refusal) String() string {
	return fmt.Sprintf("%d %s | %s | causes %s", r.code, r.reason, r.message, strings.Join(r.fields, ","))
}

// TestScaleIsValidated: a write to /scale goes through ValidateScale and is
// refused with upstream's 422 — before the resourceVersion is compared, as
// upstream's scale subresource orders the two — and the workload keeps
// its replicas.
func TestScaleIsValidated(t *testing.T) {
	a := framework.StartAPIServer(t)
	deployment := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":2,
		"selector":{"matchLabels":{"app":"web"}},
		"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}}`
	if r := a.Do(t, "POST", "/apis/apps/v1/namespaces/default/deployments", []byte(deployment)); r.Code != 201 {
		t.Fatalf("create deployment: %d %s", r.Code, r.Body)
	}
	const scalePath = "/apis/apps/v1/namespaces/default/deployments/web/scale"
	want := refusal{code: 422, reason: "Invalid",
		message: `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
		fields:  []string{"spec.replicas"}}

	tests := []struct {
		name, method, body string
		headers            []string
	}{
		{"kubectl scale's merge patch", "PATCH", `{"spec":{"replicas":-1}}`,
			[]string{"Content-Type", "application/merge-patch+json"}},
		{"a PUT with a stale resourceVersion", "PUT",
			`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"default","resourceVersion":"1"},"spec":{"replicas":-1}}`,
			[]string{"Content-Type", "application/json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := refusalOf(t, a.Do(t, tt.method, scalePath, []byte(tt.body), tt.headers...))
			if got.String() != want.String() {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}

	var scale api.Scale
	if r := a.Do(t, "GET", scalePath, nil); r.Code != 200 || json.Unmarshal(r.Body, &scale) != nil || scale.Spec.Replicas != 2 {
		t.Errorf("after the refused writes: %d %s, want spec.replicas 2", r.Code, r.Body)
	}
}

// TestBindingIsValidated: a pods/binding body goes through
// ValidatePodBinding — the target must be a Node and must be named — and a
// refused binding leaves the pod unscheduled.
func TestBindingIsValidated(t *testing.T) {
	a := framework.StartAPIServer(t)
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"b1"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`
	if r := a.Do(t, "POST", "/api/v1/namespaces/default/pods", []byte(pod)); r.Code != 201 {
		t.Fatalf("create pod: %d %s", r.Code, r.Body)
	}
	tests := []struct {
		name, target string
		want         refusal
	}{
		{"a target that is not a Node", `{"kind":"Pod","name":"node1"}`, refusal{code: 422, reason: "Invalid",
			message: `Binding "b1" is invalid: target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`,
			fields:  []string{"target.kind"}}},
		{"a target without a name", `{"kind":"Node"}`, refusal{code: 422, reason: "Invalid",
			message: `Binding "b1" is invalid: target.name: Required value`,
			fields:  []string{"target.name"}}},
		{"both", `{"kind":"Pod"}`, refusal{code: 422, reason: "Invalid",
			message: `Binding "b1" is invalid: [target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]`,
			fields:  []string{"target.kind", "target.name"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"b1"},"target":` + tt.target + `}`
			got := refusalOf(t, a.Do(t, "POST", "/api/v1/namespaces/default/pods/b1/binding", []byte(body)))
			if got.String() != tt.want.String() {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}

	var stored api.Pod
	if r := a.Do(t, "GET", "/api/v1/namespaces/default/pods/b1", nil); r.Code != 200 || json.Unmarshal(r.Body, &stored) != nil ||
		stored.Spec.NodeName != "" || len(stored.Status.Conditions) != 0 {
		t.Errorf("after the refused bindings: %d %s, want no nodeName and no PodScheduled condition", r.Code, r.Body)
	}
}
