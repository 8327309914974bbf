package apiserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// openAPIGet serves one OpenAPI request and decodes the JSON answer.
func openAPIGet(t *testing.T, s *Server, url string) (*httptest.ResponseRecorder, map[string]any) {
	t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, url, nil)
	if url == "/openapi/v3" {
		s.serveOpenAPIIndex(w, r)
	} else {
		s.serveOpenAPIDocument(w, r)
	}
	var body map[string]any
	if w.Code == http.StatusOK {
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
	}
	return w, body
}

// at walks a decoded JSON document along keys (and list indexes).
func at(t *testing.T, v any, keys ...any) any {
	t.Helper()
	for i, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok || m[k] == nil {
				t.Fatalf("no %v", keys[:i+1])
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || len(l) <= k {
				t.Fatalf("no %v", keys[:i+1])
			}
			v = l[k]
		}
	}
	return v
}

// documentOf fetches the index, then the document it lists for root.
func documentOf(t *testing.T, s *Server, root string) map[string]any {
	t.Helper()
	_, index := openAPIGet(t, s, "/openapi/v3")
	url := at(t, index, "paths", root, "serverRelativeURL").(string)
	if !strings.HasPrefix(url, "/openapi/v3/"+root+"?hash=") {
		t.Fatalf("serverRelativeURL of %s = %q", root, url)
	}
	w, doc := openAPIGet(t, s, url)
	if w.Code != http.StatusOK || w.Header().Get("Cache-Control") != "public, immutable" {
		t.Fatalf("GET %s: %d, Cache-Control %q", url, w.Code, w.Header().Get("Cache-Control"))
	}
	return doc
}

func TestOpenAPIDocumentShapes(t *testing.T) {
	s := &Server{reg: newRegistry(builtinResources())}
	apps := documentOf(t, s, "apis/apps/v1")
	schemas := at(t, apps, "components", "schemas").(map[string]any)

	// The kind's schema says which kind it is.
	deployment := at(t, schemas, "io.k8s.api.apps.v1.Deployment")
	if got := at(t, deployment, "x-kubernetes-group-version-kind"); !reflect.DeepEqual(got, []any{map[string]any{"group": "apps", "version": "v1", "kind": "Deployment"}}) {
		t.Errorf("Deployment GVK = %v", got)
	}
	if at(t, deployment, "type") != "object" {
		t.Error("Deployment is not an object")
	}
	// A struct field refers to its type's schema.
	spec := at(t, deployment, "properties", "spec")
	if at(t, spec, "allOf", 0, "$ref") != "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec" ||
		!reflect.DeepEqual(at(t, spec, "default"), map[string]any{}) {
		t.Errorf("deployment spec = %v", spec)
	}
	// Required fields are those without omitempty.
	if got := at(t, schemas, "io.k8s.api.apps.v1.DeploymentSpec", "required"); !reflect.DeepEqual(got, []any{"selector", "template"}) {
		t.Errorf("DeploymentSpec required = %v", got)
	}
	if got := at(t, schemas, "io.k8s.api.core.v1.PodSpec", "required"); !reflect.DeepEqual(got, []any{"containers"}) {
		t.Errorf("PodSpec required = %v", got)
	}
	// Lists: items, and the strategic merge hints kubectl apply reads.
	containers := at(t, schemas, "io.k8s.api.core.v1.PodSpec", "properties", "containers")
	if at(t, containers, "type") != "array" ||
		at(t, containers, "items", "allOf", 0, "$ref") != "#/components/schemas/io.k8s.api.core.v1.Container" ||
		at(t, containers, "x-kubernetes-patch-strategy") != "merge" ||
		at(t, containers, "x-kubernetes-patch-merge-key") != "name" ||
		at(t, containers, "x-kubernetes-list-type") != "map" {
		t.Errorf("containers = %v", containers)
	}
	volumes := at(t, schemas, "io.k8s.api.core.v1.PodSpec", "properties", "volumes")
	if at(t, volumes, "x-kubernetes-patch-strategy") != "merge,retainKeys" || at(t, volumes, "x-kubernetes-patch-merge-key") != "name" {
		t.Errorf("volumes = %v", volumes)
	}
	if at(t, schemas, "io.k8s.api.apps.v1.DeploymentSpec", "properties", "strategy", "x-kubernetes-patch-strategy") != "retainKeys" {
		t.Error("deployment strategy lacks retainKeys")
	}
	owners := at(t, schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "properties", "ownerReferences")
	if at(t, owners, "x-kubernetes-patch-merge-key") != "uid" {
		t.Errorf("ownerReferences = %v", owners)
	}
	// Timestamps are strings; Quantity has no type.
	if at(t, schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.Time", "type") != "string" {
		t.Error("Time is not a string")
	}
	if _, typed := at(t, schemas, "io.k8s.apimachinery.pkg.api.resource.Quantity").(map[string]any)["type"]; typed {
		t.Error("Quantity has a type")
	}

	// The document is self-contained: every $ref resolves in it.
	body, _ := json.Marshal(apps)
	for _, part := range strings.Split(string(body), `"$ref":"#/components/schemas/`)[1:] {
		name := part[:strings.IndexByte(part, '"')]
		if schemas[name] == nil {
			t.Errorf("apps/v1 refers to %s, which it does not hold", name)
		}
	}
	// Only what apps/v1's kinds reach: no Service, no Job.
	for _, other := range []string{"io.k8s.api.core.v1.Service", "io.k8s.api.batch.v1.Job", "io.k8s.api.core.v1.Pod"} {
		if schemas[other] != nil {
			t.Errorf("apps/v1 holds %s", other)
		}
	}

	// The item path's operations name the kind; PATCH takes a strategic
	// merge patch and a server-side apply, and checks fields itself.
	patch := at(t, apps, "paths", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}", "patch")
	if !reflect.DeepEqual(at(t, patch, "x-kubernetes-group-version-kind"), map[string]any{"group": "apps", "version": "v1", "kind": "Deployment"}) {
		t.Errorf("patch GVK = %v", at(t, patch, "x-kubernetes-group-version-kind"))
	}
	at(t, patch, "requestBody", "content", "application/strategic-merge-patch+json")
	at(t, patch, "requestBody", "content", "application/apply-patch+yaml")
	var params []string
	for _, p := range at(t, patch, "parameters").([]any) {
		params = append(params, p.(map[string]any)["name"].(string))
	}
	if !strings.Contains(strings.Join(params, ","), "fieldValidation") {
		t.Errorf("patch parameters = %v", params)
	}

	// The core group: Pod, cluster-scoped Node.
	core := documentOf(t, s, "api/v1")
	if got := at(t, core, "components", "schemas", "io.k8s.api.core.v1.Pod", "x-kubernetes-group-version-kind", 0); !reflect.DeepEqual(got, map[string]any{"group": "", "version": "v1", "kind": "Pod"}) {
		t.Errorf("Pod GVK = %v", got)
	}
	at(t, core, "paths", "/api/v1/nodes/{name}", "get", "x-kubernetes-group-version-kind")
}

func TestOpenAPIDocumentsAreBuiltOnce(t *testing.T) {
	s := &Server{reg: newRegistry(builtinResources())}
	s.buildOpenAPI()
	first := s.openapi.docs["apis/apps/v1"]
	documentOf(t, s, "apis/apps/v1")
	if again := s.openapi.docs["apis/apps/v1"]; &again.body[0] != &first.body[0] {
		t.Error("the apps/v1 document was built again")
	}
	if w, _ := openAPIGet(t, s, "/openapi/v3/apis/apps/v9"); w.Code != http.StatusNotFound {
		t.Errorf("unknown group-version: %d", w.Code)
	}
}

// TestOpenAPIDocumentCaching: as upstream's handler, a document asked with
// its current hash may be cached for good, one asked with another hash
// redirects to the current URL, one asked without a hash is not marked
// immutable, and If-None-Match of the ETag answers 304.
func TestOpenAPIDocumentCaching(t *testing.T) {
	s := &Server{reg: newRegistry(builtinResources())}
	s.buildOpenAPI()
	current := s.openapi.docs["apis/apps/v1"]

	w, _ := openAPIGet(t, s, "/openapi/v3/apis/apps/v1?hash=0123")
	if w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != current.url("apis/apps/v1") {
		t.Errorf("stale hash: %d, Location %q; want 301 to %s", w.Code, w.Header().Get("Location"), current.url("apis/apps/v1"))
	}
	w, _ = openAPIGet(t, s, "/openapi/v3/apis/apps/v1")
	if w.Code != http.StatusOK || w.Header().Get("Cache-Control") != "" || w.Header().Get("ETag") != `"`+current.hash+`"` {
		t.Errorf("no hash: %d, Cache-Control %q, ETag %q", w.Code, w.Header().Get("Cache-Control"), w.Header().Get("ETag"))
	}
	r := httptest.NewRequest(http.MethodGet, current.url("apis/apps/v1"), nil)
	r.Header.Set("If-None-Match", `"`+current.hash+`"`)
	w = httptest.NewRecorder()
	s.serveOpenAPIDocument(w, r)
	if w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match of the ETag: %d, want 304", w.Code)
	}
}
