package apiserver_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/test/framework"
)

// TestAccessReviewsServed: the review resources of authentication.k8s.io/v1
// and authorization.k8s.io/v1 are in legacy and aggregated discovery as
// create-only, as on a real 1.32 cluster, with Local APIServices; a
// SelfSubjectAccessReview is answered through the whole handler chain; and
// the verbs a review does not take are 405 MethodNotAllowed.
func TestAccessReviewsServed(t *testing.T) {
	a := framework.StartAPIServer(t)

	wantResources := map[string][]struct {
		name       string
		namespaced bool
	}{
		"authentication.k8s.io/v1": {{"selfsubjectreviews", false}, {"tokenreviews", false}},
		"authorization.k8s.io/v1": {{"localsubjectaccessreviews", true}, {"selfsubjectaccessreviews", false},
			{"selfsubjectrulesreviews", false}, {"subjectaccessreviews", false}},
	}
	for gv, want := range wantResources {
		resp := a.Do(t, http.MethodGet, "/apis/"+gv, nil)
		var list struct {
			Resources []struct {
				Name       string   `json:"name"`
				Namespaced bool     `json:"namespaced"`
				Verbs      []string `json:"verbs"`
			} `json:"resources"`
		}
		if err := json.Unmarshal(resp.Body, &list); err != nil || resp.Code != http.StatusOK {
			t.Fatalf("GET /apis/%s: %d %s (%v)", gv, resp.Code, resp.Body, err)
		}
		if len(list.Resources) != len(want) {
			t.Errorf("/apis/%s lists %+v, want %+v", gv, list.Resources, want)
			continue
		}
		for i, w := range want {
			got := list.Resources[i]
			if got.Name != w.name || got.Namespaced != w.namespaced || !slices.Equal(got.Verbs, []string{"create"}) {
				t.Errorf("/apis/%s resource %d: %+v, want %s namespaced=%v verbs [create]", gv, i, got, w.name, w.namespaced)
			}
		}
	}

	// Aggregated discovery lists the groups after events.k8s.io, in
	// upstream's order.
	resp := a.Do(t, http.MethodGet, "/apis", nil, "Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	var aggregated struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Versions []struct {
				Resources []struct {
					Resource string   `json:"resource"`
					Scope    string   `json:"scope"`
					Verbs    []string `json:"verbs"`
				} `json:"resources"`
			} `json:"versions"`
		} `json:"items"`
	}
	if err := json.Unmarshal(resp.Body, &aggregated); err != nil {
		t.Fatalf("aggregated discovery: %v", err)
	}
	var groups []string
	for _, item := range aggregated.Items {
		groups = append(groups, item.Metadata.Name)
		if item.Metadata.Name == "authorization.k8s.io" {
			r := item.Versions[0].Resources[0]
			if r.Resource != "localsubjectaccessreviews" || r.Scope != "Namespaced" || !slices.Equal(r.Verbs, []string{"create"}) {
				t.Errorf("aggregated authorization.k8s.io: %+v, want localsubjectaccessreviews Namespaced [create] first", r)
			}
		}
	}
	events, authn, authz := slices.Index(groups, "events.k8s.io"), slices.Index(groups, "authentication.k8s.io"), slices.Index(groups, "authorization.k8s.io")
	if events < 0 || authn != events+1 || authz != events+2 {
		t.Errorf("aggregated discovery groups %v, want authentication.k8s.io and authorization.k8s.io right after events.k8s.io", groups)
	}

	for _, name := range []string{"v1.authentication.k8s.io", "v1.authorization.k8s.io"} {
		framework.Eventually(t, 10*time.Second, func() (bool, string) {
			resp := a.Do(t, http.MethodGet, "/apis/apiregistration.k8s.io/v1/apiservices/"+name, nil)
			return resp.Code == http.StatusOK, string(resp.Body)
		})
	}

	// The admin may do anything, so says the review, through the chain.
	resp = a.Do(t, http.MethodPost, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
		[]byte(`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"delete","resource":"nodes"}}}`))
	var review api.SelfSubjectAccessReview
	if err := json.Unmarshal(resp.Body, &review); err != nil || resp.Code != http.StatusCreated || !review.Status.Allowed {
		t.Errorf("admin's SelfSubjectAccessReview: %d %s, want 201 and allowed", resp.Code, resp.Body)
	}

	for _, path := range []string{
		"/apis/authorization.k8s.io/v1/subjectaccessreviews",
		"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
		"/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
		"/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
	} {
		for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
			resp := a.Do(t, method, path, nil)
			var status api.Status
			_ = json.Unmarshal(resp.Body, &status)
			if resp.Code != http.StatusMethodNotAllowed || status.Reason != "MethodNotAllowed" {
				t.Errorf("%s %s: %d %s, want 405 MethodNotAllowed", method, path, resp.Code, resp.Body)
			}
		}
	}
}
