package apiserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/test/framework"
)

// Query parameters reach every handler with apimachinery's meaning: the
// Python client's "True" is true, "False" is false, and a malformed integer
// is a 400 Status rather than a silent default.
func TestQueryParametersAsUpstreamParsesThem(t *testing.T) {
	a := framework.StartAPIServer(t)
	create := func(name string) {
		t.Helper()
		body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`
		if r := a.Do(t, "POST", "/api/v1/namespaces/default/configmaps", []byte(body)); r.Code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", name, r.Code, r.Body)
		}
	}
	create("watched")

	t.Run("watch=True streams events", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		resp := a.Stream(t, ctx, "/api/v1/namespaces/default/configmaps?watch=True&timeoutSeconds=1")
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body) // the server ends the watch after 1 s
		if err != nil {
			t.Fatal(err)
		}
		var event struct {
			Type   string
			Object struct{ Metadata struct{ Name string } }
		}
		if err := json.Unmarshal([]byte(strings.SplitN(string(body), "\n", 2)[0]), &event); err != nil || event.Type != "ADDED" || event.Object.Metadata.Name != "watched" {
			t.Fatalf("first line of ?watch=True = %q (%v), want an ADDED event for watched", body, err)
		}
	})

	t.Run("watch=False lists", func(t *testing.T) {
		r := a.Do(t, "GET", "/api/v1/namespaces/default/configmaps?watch=False", nil)
		if r.Code != http.StatusOK || !strings.Contains(string(r.Body), `"kind":"ConfigMapList"`) {
			t.Fatalf("?watch=False = %d %s, want a ConfigMapList", r.Code, r.Body)
		}
	})

	t.Run("orphanDependents=True orphans", func(t *testing.T) {
		create("orphaner")
		r := a.Do(t, "DELETE", "/api/v1/namespaces/default/configmaps/orphaner?orphanDependents=True", nil)
		var cm api.ConfigMap
		if err := json.Unmarshal(r.Body, &cm); r.Code != http.StatusOK || err != nil {
			t.Fatalf("delete = %d %s (%v)", r.Code, r.Body, err)
		}
		if cm.DeletionTimestamp == nil || strings.Join(cm.Finalizers, ",") != "orphan" {
			t.Fatalf("after ?orphanDependents=True: deletionTimestamp %v finalizers %q, want marked with the orphan finalizer", cm.DeletionTimestamp, cm.Finalizers)
		}
	})

	t.Run("orphanDependents=False deletes", func(t *testing.T) {
		create("goner")
		a.Do(t, "DELETE", "/api/v1/namespaces/default/configmaps/goner?orphanDependents=False", nil)
		if r := a.Do(t, "GET", "/api/v1/namespaces/default/configmaps/goner", nil); r.Code != http.StatusNotFound {
			t.Fatalf("after ?orphanDependents=False the object answers %d %s, want 404", r.Code, r.Body)
		}
	})

	malformed := []struct{ method, path, message string }{
		{"GET", "/api/v1/namespaces/default/configmaps?limit=ten", `invalid value "ten" for limit`},
		{"GET", "/api/v1/namespaces/default/configmaps?limit=", `invalid value "" for limit`},
		{"GET", "/api/v1/namespaces/default/configmaps?limit=-1", `invalid value "-1" for limit`},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=soon", `invalid value "soon" for timeoutSeconds`},
		{"DELETE", "/api/v1/namespaces/default/configmaps/watched?gracePeriodSeconds=now", `invalid value "now" for gracePeriodSeconds`},
	}
	for _, tt := range malformed {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := a.Do(t, tt.method, tt.path, nil)
			var status api.Status
			if err := json.Unmarshal(r.Body, &status); err != nil || r.Code != http.StatusBadRequest ||
				status.Kind != "Status" || status.Reason != "BadRequest" || status.Code != 400 || !strings.Contains(status.Message, tt.message) {
				t.Fatalf("= %d %s, want a 400 BadRequest Status containing %q", r.Code, r.Body, tt.message)
			}
		})
	}
	if r := a.Do(t, "GET", "/api/v1/namespaces/default/configmaps/watched", nil); r.Code != http.StatusOK {
		t.Errorf("the malformed delete removed the object: GET answers %d", r.Code)
	}
}

// Version and discovery answer with a trailing slash as upstream does;
// health checks and the OpenAPI index are exact paths upstream and 404.
func TestTrailingSlashPaths(t *testing.T) {
	a := framework.StartAPIServer(t)
	tests := []struct {
		path, wantBody string
		wantCode       int
	}{
		{"/version/", `"gitVersion"`, http.StatusOK},
		{"/api/", `"kind":"APIVersions"`, http.StatusOK},
		{"/apis/", `"kind":"APIGroupList"`, http.StatusOK},
		{"/api/v1/", `"kind":"APIResourceList"`, http.StatusOK},
		{"/apis/apps/", `"kind":"APIGroup"`, http.StatusOK},
		{"/apis/apps/v1/", `"kind":"APIResourceList"`, http.StatusOK},
		{"/apis/nosuch.example.com/", "", http.StatusNotFound},
		{"/healthz/", "", http.StatusNotFound},
		{"/livez/", "", http.StatusNotFound},
		{"/readyz/", "", http.StatusNotFound},
		{"/openapi/v3/", "", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := a.Do(t, "GET", tt.path, nil)
			if r.Code != tt.wantCode || !strings.Contains(string(r.Body), tt.wantBody) {
				t.Fatalf("GET %s = %d %.200s, want %d with %s", tt.path, r.Code, r.Body, tt.wantCode, tt.wantBody)
			}
		})
	}
}

// Answers are indented JSON when the request asks for ?pretty=true or comes
// from curl; a watch stays one compact event per line, and other answers
// stay compact.
func TestPrettyAnswers(t *testing.T) {
	a := framework.StartAPIServer(t)
	const indented = "{\n  \"kind\": \"Namespace\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {\n    \"name\": \"default\","
	tests := []struct {
		path, userAgent string
		wantPrefix      string
	}{
		{"/api/v1/namespaces/default?pretty=true", "", indented},
		{"/api/v1/namespaces/default", "curl/8.5.0", indented},
		{"/api/v1/namespaces/default", "", `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"default",`},
		{"/api/v1/namespaces/default?pretty=false", "curl/8.5.0", `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"default",`},
		{"/api/v1/namespaces/nosuch?pretty=1", "", "{\n  \"kind\": \"Status\",\n"},
		{"/healthz?pretty=true", "", "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.userAgent, func(t *testing.T) {
			headers := []string{}
			if tt.userAgent != "" {
				headers = append(headers, "User-Agent", tt.userAgent)
			}
			r := a.Do(t, "GET", tt.path, nil, headers...)
			if !strings.HasPrefix(string(r.Body), tt.wantPrefix) {
				t.Fatalf("GET %s = %d\n%.300s\nwant it to start with\n%s", tt.path, r.Code, r.Body, tt.wantPrefix)
			}
		})
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := a.Stream(t, ctx, "/api/v1/namespaces?watch=true&pretty=true&timeoutSeconds=1")
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.HasPrefix(string(body), `{"type":"ADDED","object":{"kind":"Namespace"`) {
		t.Errorf("watch with ?pretty=true = %.300s, want compact events", body)
	}
}

// Combinations of options upstream's validation rejects are one 422
// Invalid Status naming every broken rule, as upstream reports them.
func TestInvalidOptionsCombinations(t *testing.T) {
	a := framework.StartAPIServer(t)
	const configmaps = "/api/v1/namespaces/default/configmaps"
	tests := []struct {
		method, path, body string
		wantMessage        string
	}{
		{"GET", configmaps + "?resourceVersionMatch=Exact", "",
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`},
		{"GET", configmaps + "?resourceVersion=0&resourceVersionMatch=Exact", "",
			`resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{"GET", configmaps + "?resourceVersion=5&resourceVersionMatch=Newest", "",
			`resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""`},
		{"GET", configmaps + "?sendInitialEvents=true", "",
			`sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`},
		{"GET", configmaps + "?watch=1&sendInitialEvents=true", "",
			`resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`},
		{"GET", configmaps + "?watch=1&resourceVersion=1&resourceVersionMatch=Exact", "",
			`ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]`},
		{"POST", configmaps + "?dryRun=Some", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dry"}}`,
			`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value:`},
		{"DELETE", configmaps + "/whatever?dryRun=", "",
			`DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value:`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := a.Do(t, tt.method, tt.path, []byte(tt.body))
			var status api.Status
			if err := json.Unmarshal(r.Body, &status); err != nil || r.Code != http.StatusUnprocessableEntity ||
				status.Reason != "Invalid" || !strings.Contains(status.Message, tt.wantMessage) {
				t.Fatalf("= %d %s\nwant a 422 Invalid Status containing %s", r.Code, r.Body, tt.wantMessage)
			}
		})
	}
	// The client-go WatchList request is accepted.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := a.Stream(t, ctx, configmaps+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1")
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("WatchList request = %d %s, want 200", resp.StatusCode, body)
	}
}
