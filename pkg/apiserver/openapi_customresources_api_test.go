package apiserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/test/framework"
)

const crontabRoot = "apis/stable.example.com/v1"

// openAPIIndexURL is the URL /openapi/v3 lists for root, "" when none.
func openAPIIndexURL(t *testing.T, a *framework.APIServer, root string) string {
	t.Helper()
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	resp := a.Do(t, http.MethodGet, "/openapi/v3", nil)
	if err := json.Unmarshal(resp.Body, &index); err != nil || resp.Code != http.StatusOK {
		t.Fatalf("GET /openapi/v3: %d %v %s", resp.Code, err, resp.Body)
	}
	if _, ok := index.Paths["apis/apps/v1"]; !ok {
		t.Fatalf("the index lost the built-in documents: %s", resp.Body)
	}
	return index.Paths[root].ServerRelativeURL
}

// jsonAt walks a decoded JSON value along keys; nil when a key is missing.
func jsonAt(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// decodeJSON decodes a JSON object, or fails the test.
func decodeJSON(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %.200s: %v", body, err)
	}
	return v
}

// describedCronTab is crontabCRD with descriptions on the kind and spec.
func describedCronTab(c *api.CustomResourceDefinition) {
	root := c.Spec.Versions[0].Schema.OpenAPIV3Schema
	root.Description = "CronTab runs an image on a schedule."
	spec := root.Properties["spec"]
	spec.Description = "Spec is what the user asks for."
	spec.Required = []string{"cronSpec"}
	root.Properties["spec"] = spec
}

// TestOpenAPIPublishesCustomResources: an established CRD's group-version
// gets its own /openapi/v3 document — the kind's item path (whose PATCH
// takes no strategic merge patch) and the kind's and list kind's schemas
// with the CRD's descriptions — served with upstream's caching headers; a
// second CRD of the group-version joins the same document; a schema change
// gives the document a new hash (the old URL redirects to the new); and
// /openapi/v2 holds the same definitions and paths, with a new ETag. When
// the CRDs go, so do their documents.
func TestOpenAPIPublishesCustomResources(t *testing.T) {
	a := framework.StartAPIServer(t)
	if url := openAPIIndexURL(t, a, crontabRoot); url != "" {
		t.Fatalf("index lists %s before any CRD: %s", crontabRoot, url)
	}
	v2Before := a.Do(t, http.MethodGet, "/openapi/v2", nil).Header.Get("ETag")

	establishCRD(t, a, crontabCRD(describedCronTab))
	url := openAPIIndexURL(t, a, crontabRoot)
	hash, ok := strings.CutPrefix(url, "/openapi/v3/"+crontabRoot+"?hash=")
	if !ok || hash == "" {
		t.Fatalf("index URL of %s = %q", crontabRoot, url)
	}
	resp := a.Do(t, http.MethodGet, url, nil)
	if resp.Code != http.StatusOK || resp.Header.Get("Cache-Control") != "public, immutable" || resp.Header.Get("ETag") != strconv.Quote(hash) {
		t.Fatalf("GET %s: %d, Cache-Control %q, ETag %q", url, resp.Code, resp.Header.Get("Cache-Control"), resp.Header.Get("ETag"))
	}
	if again := a.Do(t, http.MethodGet, url, nil, "If-None-Match", strconv.Quote(hash)); again.Code != http.StatusNotModified {
		t.Errorf("GET with If-None-Match of the current ETag: %d, want 304", again.Code)
	}

	doc := decodeJSON(t, resp.Body)
	gvk := func(kind string) []any {
		return []any{map[string]any{"group": "stable.example.com", "version": "v1", "kind": kind}}
	}
	cronTab := jsonAt(doc, "components", "schemas", "com.example.stable.v1.CronTab")
	if fmt.Sprint(jsonAt(cronTab, "x-kubernetes-group-version-kind")) != fmt.Sprint(gvk("CronTab")) ||
		jsonAt(cronTab, "description") != "CronTab runs an image on a schedule." ||
		jsonAt(cronTab, "properties", "spec", "description") != "Spec is what the user asks for." ||
		fmt.Sprint(jsonAt(cronTab, "properties", "spec", "required")) != "[cronSpec]" ||
		jsonAt(cronTab, "properties", "metadata", "allOf") == nil {
		t.Errorf("CronTab schema = %v", cronTab)
	}
	list := jsonAt(doc, "components", "schemas", "com.example.stable.v1.CronTabList")
	if fmt.Sprint(jsonAt(list, "x-kubernetes-group-version-kind")) != fmt.Sprint(gvk("CronTabList")) {
		t.Errorf("CronTabList schema = %v", list)
	}
	if jsonAt(doc, "components", "schemas", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta") == nil {
		t.Error("the document does not hold ObjectMeta, which metadata refers to")
	}
	patch := jsonAt(doc, "paths", "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}", "patch")
	content, _ := jsonAt(patch, "requestBody", "content").(map[string]any)
	if fmt.Sprint(jsonAt(patch, "x-kubernetes-group-version-kind")) != fmt.Sprint(gvk("CronTab")[0]) ||
		content["application/merge-patch+json"] == nil || content["application/apply-patch+yaml"] == nil ||
		content["application/strategic-merge-patch+json"] != nil {
		t.Errorf("CronTab PATCH operation = %v; want its kind, merge patch, apply patch and no strategic merge patch", patch)
	}

	// A second kind of the same group-version shares the document.
	establishCRD(t, a, crontabCRD(func(c *api.CustomResourceDefinition) {
		c.Name = "shirts.stable.example.com"
		c.Spec.Names = api.CustomResourceDefinitionNames{Plural: "shirts", Kind: "Shirt"}
		c.Spec.Scope = api.ClusterScoped
	}))
	doc = decodeJSON(t, a.Do(t, http.MethodGet, openAPIIndexURL(t, a, crontabRoot), nil).Body)
	if jsonAt(doc, "components", "schemas", "com.example.stable.v1.Shirt") == nil || jsonAt(doc, "components", "schemas", "com.example.stable.v1.CronTab") == nil ||
		jsonAt(doc, "paths", "/apis/stable.example.com/v1/shirts/{name}", "get") == nil {
		t.Errorf("the stable.example.com/v1 document lacks Shirt or CronTab: %.400s", doc)
	}

	// /openapi/v2 has the custom kinds too, and a new ETag.
	v2 := a.Do(t, http.MethodGet, "/openapi/v2", nil)
	swagger := decodeJSON(t, v2.Body)
	if jsonAt(swagger, "definitions", "com.example.stable.v1.CronTab", "properties", "spec", "description") != "Spec is what the user asks for." ||
		jsonAt(swagger, "definitions", "io.k8s.api.apps.v1.Deployment") == nil {
		t.Error("/openapi/v2 lacks the CronTab definition or the built-in ones")
	}
	consumes := fmt.Sprint(jsonAt(swagger, "paths", "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}", "patch", "consumes"))
	if !strings.Contains(consumes, "application/merge-patch+json") || strings.Contains(consumes, "strategic") {
		t.Errorf("/openapi/v2 CronTab PATCH consumes %s", consumes)
	}
	if v2.Header.Get("ETag") == v2Before {
		t.Error("/openapi/v2 kept its ETag after CRDs were added")
	}
	pb := a.Do(t, http.MethodGet, "/openapi/v2", nil, "Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	if pb.Code != http.StatusOK || !strings.Contains(string(pb.Body), "com.example.stable.v1.CronTab") || pb.Header.Get("ETag") != v2.Header.Get("ETag") {
		t.Errorf("/openapi/v2 protobuf: %d, ETag %q (JSON's %q), holds CronTab %v", pb.Code, pb.Header.Get("ETag"), v2.Header.Get("ETag"),
			strings.Contains(string(pb.Body), "com.example.stable.v1.CronTab"))
	}

	// A schema change: a new hash; the old URL redirects to the new one.
	oldURL := openAPIIndexURL(t, a, crontabRoot)
	change := `[{"op":"replace","path":"/spec/versions/0/schema/openAPIV3Schema/description","value":"CronTab, described anew."}]`
	if resp := a.Do(t, http.MethodPatch, crdPath+"/crontabs.stable.example.com", []byte(change), "Content-Type", "application/json-patch+json"); resp.Code != http.StatusOK {
		t.Fatalf("change the schema: %d %s", resp.Code, resp.Body)
	}
	var newURL string
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		newURL = openAPIIndexURL(t, a, crontabRoot)
		return newURL != oldURL, "index still lists " + oldURL
	})
	resp = a.Do(t, http.MethodGet, oldURL, nil)
	if resp.Code != http.StatusOK || jsonAt(decodeJSON(t, resp.Body), "components", "schemas", "com.example.stable.v1.CronTab", "description") != "CronTab, described anew." {
		t.Errorf("GET %s (the old hash) after the change: %d, want the new document", oldURL, resp.Code)
	}

	// Removing the CRDs removes their document and definitions.
	for _, name := range []string{"crontabs.stable.example.com", "shirts.stable.example.com"} {
		if resp := a.Do(t, http.MethodDelete, crdPath+"/"+name, nil); resp.Code != http.StatusOK {
			t.Fatalf("delete %s: %d %s", name, resp.Code, resp.Body)
		}
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		url := openAPIIndexURL(t, a, crontabRoot)
		return url == "", "index still lists " + url
	})
	if resp := a.Do(t, http.MethodGet, "/openapi/v3/"+crontabRoot, nil); resp.Code != http.StatusNotFound {
		t.Errorf("GET the removed document: %d, want 404", resp.Code)
	}
	v2 = a.Do(t, http.MethodGet, "/openapi/v2", nil)
	if strings.Contains(string(v2.Body), "com.example.stable.v1.CronTab") || v2.Header.Get("ETag") != v2Before {
		t.Errorf("/openapi/v2 after the CRDs went: still holds CronTab %v, ETag %q (before them %q)",
			strings.Contains(string(v2.Body), "com.example.stable.v1.CronTab"), v2.Header.Get("ETag"), v2Before)
	}
}
