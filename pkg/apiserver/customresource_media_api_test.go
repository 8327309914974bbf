package apiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"kplane/test/framework"
)

// TestCustomResourceMediaTypes: custom resources are JSON only, as
// upstream's. A client that prefers protobuf but accepts JSON gets JSON;
// one that accepts protobuf only gets 406; a protobuf body gets 415, and a
// patch in a type a custom resource has no use for lists the ones it has.
func TestCustomResourceMediaTypes(t *testing.T) {
	a := framework.StartAPIServer(t)
	establishCRD(t, a, crontabCRD(nil))
	object(t, a.Do(t, http.MethodPost, crontabs, []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x"}}`)), http.StatusCreated)

	for _, path := range []string{crontabs + "/x", crontabs} {
		resp := a.Do(t, http.MethodGet, path, nil, "Accept", "application/vnd.kubernetes.protobuf, application/json")
		if resp.Code != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("GET %s preferring protobuf: %d %s, want JSON", path, resp.Code, resp.Header.Get("Content-Type"))
		}
		resp = a.Do(t, http.MethodGet, path, nil, "Accept", "application/vnd.kubernetes.protobuf")
		if want := "only the following media types are accepted: application/json, application/yaml"; resp.Code != http.StatusNotAcceptable || statusMessage(resp.Body) != want {
			t.Errorf("GET %s protobuf only: %d %q, want 406 %q", path, resp.Code, statusMessage(resp.Body), want)
		}
	}
	resp := a.Do(t, http.MethodGet, crontabs, nil, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	if resp.Code != http.StatusOK {
		t.Errorf("kubectl get's Table request: %d %s", resp.Code, resp.Body)
	}

	resp = a.Do(t, http.MethodPost, crontabs, []byte("k8s\x00\x0a\x00"), "Content-Type", "application/vnd.kubernetes.protobuf")
	if want := "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml"; resp.Code != http.StatusUnsupportedMediaType || statusMessage(resp.Body) != want {
		t.Errorf("POST of a protobuf body: %d %q, want 415 %q", resp.Code, statusMessage(resp.Body), want)
	}
	resp = a.Do(t, http.MethodPatch, crontabs+"/x", []byte("k8s\x00"), "Content-Type", "application/vnd.kubernetes.protobuf")
	if want := "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"; resp.Code != http.StatusUnsupportedMediaType || statusMessage(resp.Body) != want {
		t.Errorf("PATCH of a protobuf body: %d %q, want 415 %q", resp.Code, statusMessage(resp.Body), want)
	}
}
