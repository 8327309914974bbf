package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"kplane/pkg/api"
)

// websiteCRD is a small CRD with the schema features the published
// documents treat specially.
func websiteCRD(t *testing.T) *api.CustomResourceDefinition {
	t.Helper()
	var crd api.CustomResourceDefinition
	err := json.Unmarshal([]byte(`{
	  "metadata": {"name": "websites.shop.example.com"},
	  "spec": {
	    "group": "shop.example.com", "scope": "Namespaced",
	    "names": {"plural": "websites", "singular": "website", "kind": "Website"},
	    "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
	      "type": "object", "description": "A website.",
	      "properties": {
	        "spec": {"type": "object", "required": ["image", "note"], "properties": {
	          "image": {"type": "string", "description": "The image to serve.", "pattern": "^[a-z]"},
	          "replicas": {"type": "integer", "minimum": 1, "default": 2},
	          "note": {"type": "string", "nullable": true},
	          "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
	            "properties": {"a": {"type": "string"}}},
	          "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}
	        },
	        "x-kubernetes-validations": [{"rule": "self.replicas <= 10", "message": "too many"}]}
	      }}}}]
	  }}`), &crd)
	if err != nil {
		t.Fatal(err)
	}
	return &crd
}

// A CRD version's schema is published like a built-in kind's: apiVersion,
// kind and metadata added, the group-version-kind extension, a list kind,
// and every reference resolving inside the returned components.
func TestCustomResourceSchemasLookLikeABuiltinKind(t *testing.T) {
	crd := websiteCRD(t)
	schemas := CustomResourceSchemas(crd, "v1")
	kind := schemas["com.example.shop.v1.Website"]
	if kind == nil {
		t.Fatalf("no schema named com.example.shop.v1.Website among %v", keys(schemas))
	}
	if want := []GroupVersionKind{{Group: "shop.example.com", Version: "v1", Kind: "Website"}}; !reflect.DeepEqual(kind.GroupVersionKinds, want) {
		t.Errorf("group-version-kind %v, want %v", kind.GroupVersionKinds, want)
	}
	if kind.Description != "A website." || kind.Properties["kind"].Type != "string" || kind.Properties["apiVersion"].Type != "string" {
		t.Errorf("kind schema %+v: want the CRD's description and TypeMeta's fields", kind)
	}
	meta := kind.Properties["metadata"]
	if len(meta.AllOf) != 1 || meta.AllOf[0].Ref != Ref("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta") {
		t.Errorf("metadata %+v, want a reference to ObjectMeta", meta)
	}
	spec := kind.Properties["spec"]
	if spec.Properties["image"].Description != "The image to serve." || spec.Properties["image"].Pattern != "^[a-z]" {
		t.Errorf("spec.image %+v", spec.Properties["image"])
	}
	if r := spec.Properties["replicas"]; r.Type != "integer" || r.Minimum == nil || *r.Minimum != 1 {
		t.Errorf("spec.replicas %+v", r)
	}
	if len(spec.Validations) != 1 || spec.Properties["tags"].ListType != "set" {
		t.Errorf("spec's x-kubernetes extensions lost: %+v", spec)
	}
	list := schemas["com.example.shop.v1.WebsiteList"]
	if list == nil || list.Properties["items"].Items.Ref != Ref("com.example.shop.v1.Website") || list.GroupVersionKinds[0].Kind != "WebsiteList" {
		t.Fatalf("list kind %+v", list)
	}
	out, err := json.Marshal(schemas)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"default":2`) {
		t.Errorf("the default was not published: %s", out)
	}
	for _, ref := range refsIn(string(out)) {
		if schemas[strings.TrimPrefix(ref, Ref(""))] == nil {
			t.Errorf("reference to %s does not resolve", ref)
		}
	}
	if CustomResourceSchemas(crd, "v2") != nil {
		t.Error("a version the CRD does not have got schemas")
	}
}

// The Swagger 2.0 form drops what v2 cannot say, as upstream does for
// kubectl's client-side validation.
func TestCustomResourceSwaggerDropsWhatV2CannotSay(t *testing.T) {
	defs := CustomResourceSwaggerDefinitions(websiteCRD(t), "v1")
	spec := defs["com.example.shop.v1.Website"].Properties["spec"]
	if note := spec.Properties["note"]; note.Type != "" || note.Nullable {
		t.Errorf("nullable note kept %+v", note)
	}
	if !reflect.DeepEqual(spec.Required, []string{"image"}) {
		t.Errorf("required %v, want the nullable note taken out", spec.Required)
	}
	if extra := spec.Properties["extra"]; extra.Type != "" || extra.Properties != nil {
		t.Errorf("preserve-unknown extra kept %+v", extra)
	}
	if meta := defs["com.example.shop.v1.Website"].Properties["metadata"]; meta.Ref != SwaggerRef("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta") {
		t.Errorf("metadata %+v, want a bare v2 reference", meta)
	}
	// The v3 form is not changed by building the v2 one.
	again := CustomResourceSchemas(websiteCRD(t), "v1")["com.example.shop.v1.Website"].Properties["spec"]
	if again.Properties["note"].Type != "string" {
		t.Error("the v3 schema lost its nullable type")
	}
}

func keys(m map[string]*Schema) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A custom kind's apiVersion, kind and metadata carry upstream's
// descriptions, which `kubectl explain website` prints; its list's
// metadata is described as list metadata.
func TestCustomResourceTypeMetaDescriptions(t *testing.T) {
	schemas := CustomResourceSchemas(websiteCRD(t), "v1")
	kind, list := schemas["com.example.shop.v1.Website"], schemas["com.example.shop.v1.WebsiteList"]
	for _, c := range []struct {
		what, got, prefix string
	}{
		{"Website apiVersion", kind.Properties["apiVersion"].Description, "APIVersion defines the versioned schema"},
		{"Website kind", kind.Properties["kind"].Description, "Kind is a string value representing the REST resource"},
		{"Website metadata", kind.Properties["metadata"].Description, "Standard object's metadata."},
		{"WebsiteList metadata", list.Properties["metadata"].Description, "Standard list metadata."},
		{"WebsiteList kind", list.Properties["kind"].Description, "Kind is a string value"},
	} {
		if !strings.HasPrefix(c.got, c.prefix) {
			t.Errorf("%s description %q, want it to start %q", c.what, c.got, c.prefix)
		}
	}
}
