package patch

import (
	"reflect"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/apiserver/decode"
)

// TestKubectlApplyPatchDecodesAsAPIDeployment replays the captured kubectl
// apply (kubectl_test.go) on kplane's real Deployment type and decodes the
// result as the apiserver does: no unknown fields, and the edits landed.
func TestKubectlApplyPatchDecodesAsAPIDeployment(t *testing.T) {
	live, patch, _ := capturedApply(t)
	got, err := Apply(StrategicMergePatchType, live, patch, reflect.TypeFor[api.Deployment]())
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	var deployment api.Deployment
	warnings, err := decode.Into(got, &deployment, true)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("decoding the result: %v %v", warnings, err)
	}
	c := deployment.Spec.Template.Spec.Containers
	if len(c) != 1 || c[0].Image != "nginx:1.27" || len(c[0].Ports) != 2 || deployment.Spec.Strategy.RollingUpdate != nil {
		t.Errorf("decoded %+v", deployment.Spec)
	}
}

// TestKubeletStatusPatchOnAPIPod is the shape of the status patch upstream's
// kubelet sends: conditions merged by type in the given order, container
// statuses (no merge key) replaced.
func TestKubeletStatusPatchOnAPIPod(t *testing.T) {
	live := `{"metadata":{"name":"p","uid":"u"},"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Pending",` +
		`"conditions":[{"type":"PodScheduled","status":"True"},{"type":"Ready","status":"False","reason":"ContainersNotReady"}],` +
		`"containerStatuses":[{"name":"a","ready":false,"restartCount":0}]}}`
	patch := `{"metadata":{"uid":"u"},"status":{"$setElementOrder/conditions":[{"type":"Initialized"},{"type":"Ready"},{"type":"PodScheduled"}],` +
		`"conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"True","reason":null}],` +
		`"containerStatuses":[{"name":"a","ready":true,"restartCount":0,"started":true}],"phase":"Running","podIP":"10.244.1.5"}}`
	want := `{"metadata":{"name":"p","uid":"u"},"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Running","podIP":"10.244.1.5",` +
		`"conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"True"},{"type":"PodScheduled","status":"True"}],` +
		`"containerStatuses":[{"name":"a","ready":true,"restartCount":0,"started":true}]}}`
	got, err := Apply(StrategicMergePatchType, []byte(live), []byte(patch), reflect.TypeFor[*api.Pod]())
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != canonical(t, want) {
		t.Errorf("Apply =\n%s\nwant\n%s", got, canonical(t, want))
	}
}

// BenchmarkKubectlApplyPatch measures applying the captured kubectl apply
// patch to a Deployment.
func BenchmarkKubectlApplyPatch(b *testing.B) {
	live, patch, _ := capturedApply(b)
	typ := reflect.TypeFor[api.Deployment]()
	for b.Loop() {
		if _, err := Apply(StrategicMergePatchType, live, patch, typ); err != nil {
			b.Fatal(err)
		}
	}
}
