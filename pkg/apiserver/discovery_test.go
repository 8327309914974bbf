package apiserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

// The Accept headers real clients send for /api and /apis.
const (
	acceptKubectl127 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
	acceptKubectl132 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)

func TestNegotiateDiscovery(t *testing.T) {
	for _, tc := range []struct {
		name, accept, want string
	}{
		{"kubectl 1.27-1.29 ask for v2beta1", acceptKubectl127, "v2beta1"},
		{"kubectl 1.30+ ask for v2 first", acceptKubectl132, "v2"},
		{"no Accept header is legacy", "", ""},
		{"plain JSON is legacy", "application/json", ""},
		{"any type is legacy", "*/*", ""},
		{"an aggregated range later in the header still wins", "application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", "v2"},
		{"q orders the ranges", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", "v2beta1"},
		{"q=0 refuses", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0,application/json", ""},
		{"a version not served falls through", "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json", ""},
		{"another kind is not aggregated discovery", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupList,application/json", ""},
		{"protobuf is not written; the JSON range after it is", "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", "v2beta1"},
		{"parameters in any order", "application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io", "v2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := negotiateDiscovery(tc.accept); got != tc.want {
				t.Errorf("negotiateDiscovery(%q) = %q, want %q", tc.accept, got, tc.want)
			}
		})
	}
}

// discoveryGet serves GET path with an Accept header through the handler
// that answers it.
func discoveryGet(t *testing.T, s *Server, path, accept string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("Accept", accept)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	switch path {
	case "/api":
		s.serveLegacyVersions(w, r)
	case "/apis":
		s.serveGroups(w, r)
	default:
		t.Fatalf("no discovery handler for %s", path)
	}
	return w
}

// TestDiscoveryServesWhatAcceptAsks checks that /api and /apis answer in
// the form and version asked for, labelled so that a client (kubectl 1.27
// compares the Content-Type as a string) recognises it, and that both
// aggregated versions list the same groups.
func TestDiscoveryServesWhatAcceptAsks(t *testing.T) {
	s := &Server{reg: newRegistry(builtinResources())}
	for _, path := range []string{"/api", "/apis"} {
		items := map[string]any{}
		for _, version := range []string{"v2", "v2beta1"} {
			accept := "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList,application/json"
			w := discoveryGet(t, s, path, accept)
			wantType := "application/json;g=apidiscovery.k8s.io;v=" + version + ";as=APIGroupDiscoveryList"
			if w.Code != http.StatusOK || w.Header().Get("Content-Type") != wantType || w.Header().Get("Vary") != "Accept" {
				t.Fatalf("GET %s (%s): %d, Content-Type %q, Vary %q", path, version, w.Code, w.Header().Get("Content-Type"), w.Header().Get("Vary"))
			}
			var body map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if body["kind"] != "APIGroupDiscoveryList" || body["apiVersion"] != "apidiscovery.k8s.io/"+version {
				t.Errorf("GET %s (%s): kind %v, apiVersion %v", path, version, body["kind"], body["apiVersion"])
			}
			if list, _ := body["items"].([]any); len(list) == 0 {
				t.Errorf("GET %s (%s): no items", path, version)
			}
			items[version] = body["items"]
		}
		if !reflect.DeepEqual(items["v2"], items["v2beta1"]) {
			t.Errorf("GET %s: v2 and v2beta1 list different groups", path)
		}
	}

	// Neither version acceptable: the legacy documents.
	for path, kind := range map[string]string{"/api": "APIVersions", "/apis": "APIGroupList"} {
		w := discoveryGet(t, s, path, "application/json")
		var body map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if w.Code != http.StatusOK || body["kind"] != kind || w.Header().Get("Content-Type") != "application/json" || w.Header().Get("Vary") != "Accept" {
			t.Errorf("GET %s (legacy): %d, kind %v, Content-Type %q, Vary %q", path, w.Code, body["kind"], w.Header().Get("Content-Type"), w.Header().Get("Vary"))
		}
	}
}

// TestAggregatedDiscoveryETag checks upstream's cache validation: the
// answer names its ETag, and asking again with If-None-Match gets 304
// without a body.
func TestAggregatedDiscoveryETag(t *testing.T) {
	s := &Server{reg: newRegistry(builtinResources())}
	first := discoveryGet(t, s, "/apis", acceptKubectl132)
	etag := first.Header().Get("ETag")
	if len(etag) < 3 || etag[0] != '"' || etag[len(etag)-1] != '"' {
		t.Fatalf("ETag = %q, want a quoted hash", etag)
	}
	again := discoveryGet(t, s, "/apis", acceptKubectl132, "If-None-Match", etag)
	if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("If-None-Match %s: %d with %d bytes, want 304 and no body", etag, again.Code, again.Body.Len())
	}
	if other := discoveryGet(t, s, "/apis", acceptKubectl132, "If-None-Match", `"stale"`); other.Code != http.StatusOK {
		t.Errorf("If-None-Match with another ETag: %d, want 200", other.Code)
	}
}
