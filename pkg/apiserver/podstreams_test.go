package apiserver_test

import (
	"testing"

	"kplane/test/framework"
)

// TestPodStreamsRefuseBeforeTheKubelet: exec, attach and port-forward
// answer what the apiserver itself can tell — no such pod, no node yet, no
// such container — with upstream's Status before any kubelet is dialled.
func TestPodStreamsRefuseBeforeTheKubelet(t *testing.T) {
	a := framework.StartAPIServer(t)
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"nginx","image":"nginx"},{"name":"sidecar","image":"busybox"}]}}`
	if r := a.Do(t, "POST", "/api/v1/namespaces/default/pods", []byte(pod)); r.Code != 201 {
		t.Fatalf("create pod: %d %s", r.Code, r.Body)
	}
	tests := []struct {
		path   string
		code   int
		reason string
		want   string
	}{
		{"/api/v1/namespaces/default/pods/nope/exec?command=sh&stdout=true", 404, "NotFound", `pods "nope" not found`},
		{"/api/v1/namespaces/default/pods/web/exec?command=sh&stdout=true&container=nginx", 400, "BadRequest", "pod web does not have a host assigned"},
		{"/api/v1/namespaces/default/pods/web/attach?stdout=true&container=nginx", 400, "BadRequest", "pod web does not have a host assigned"},
		{"/api/v1/namespaces/default/pods/web/portforward?ports=80", 400, "BadRequest", "pod web does not have a host assigned"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := refusalOf(t, a.Do(t, "POST", tt.path, nil))
			if got.code != tt.code || got.reason != tt.reason || got.message != tt.want {
				t.Errorf("got %s\nwant %d %s | %s", got, tt.code, tt.reason, tt.want)
			}
		})
	}
	binding := `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"},"target":{"kind":"Node","name":"node1"}}`
	if r := a.Do(t, "POST", "/api/v1/namespaces/default/pods/web/binding", []byte(binding)); r.Code != 201 {
		t.Fatalf("bind pod: %d %s", r.Code, r.Body)
	}
	for path, want := range map[string]string{
		"/api/v1/namespaces/default/pods/web/exec?command=sh&stdout=true":                 "a container name must be specified for pod web, choose one of: [nginx sidecar]",
		"/api/v1/namespaces/default/pods/web/exec?command=sh&stdout=true&container=other": "container other is not valid for pod web",
	} {
		got := refusalOf(t, a.Do(t, "POST", path, nil))
		if got.code != 400 || got.message != want {
			t.Errorf("%s: got %s\nwant 400 | %s", path, got, want)
		}
	}
}
