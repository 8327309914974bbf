package apiserver_test

import (
	"strings"
	"testing"

	"kplane/test/framework"
)

// TestNotServedSaysWhatToUseInstead: the APIs kplane does not serve yet
// answer 405 MethodNotAllowed with a message that says so and names the
// alternative; never a 404 (which kubectl rewrites into advice about
// feature gates) nor a hint that the kubelet is missing.
func TestNotServedSaysWhatToUseInstead(t *testing.T) {
	a := framework.StartAPIServer(t)
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}`
	if r := a.Do(t, "POST", "/api/v1/namespaces/default/pods", []byte(pod)); r.Code != 201 {
		t.Fatalf("create pod: %d %s", r.Code, r.Body)
	}
	tests := []struct {
		method, path, body string
		want               string
	}{
		{"POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`,
			"selfsubjectreviews.authentication.k8s.io is not served by kplane yet: you are the user of your kubeconfig's current context (`kubectl config view --minify -o jsonpath='{.users[0].name}'`)"},
		{"POST", "/apis/authentication.k8s.io/v1beta1/selfsubjectreviews", `{}`,
			"selfsubjectreviews.authentication.k8s.io is not served by kplane yet: you are the user of your kubeconfig's current context (`kubectl config view --minify -o jsonpath='{.users[0].name}'`)"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := refusalOf(t, a.Do(t, tt.method, tt.path, []byte(tt.body)))
			if got.code != 405 || got.reason != "MethodNotAllowed" || got.message != tt.want {
				t.Errorf("got %s\nwant 405 MethodNotAllowed | %s", got, tt.want)
			}
			if strings.Contains(got.message, "arrives with the kubelet") {
				t.Errorf("message still blames a missing kubelet: %s", got.message)
			}
		})
	}
}
