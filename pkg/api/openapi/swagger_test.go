package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"kplane/pkg/api"
)

// swaggerKinds are a few kinds whose fields reach every shape: nested
// structs, lists, maps, Quantity, IntOrString, Time and raw JSON.
var swaggerKinds = []Kind{
	{GroupVersionKind{"apps", "v1", "Deployment"}, reflect.TypeFor[api.Deployment]()},
	{GroupVersionKind{"", "v1", "Pod"}, reflect.TypeFor[api.Pod]()},
	{GroupVersionKind{"apps", "v1", "ControllerRevision"}, reflect.TypeFor[api.ControllerRevision]()},
	{GroupVersionKind{"", "v1", "Service"}, reflect.TypeFor[api.Service]()},
	{GroupVersionKind{"discovery.k8s.io", "v1", "EndpointSlice"}, reflect.TypeFor[api.EndpointSlice]()},
}

// TestSwaggerDefinitionsSpelling checks the v2 spelling: bare references
// into #/definitions/ beside their description, no allOf or oneOf anywhere
// (Swagger 2.0 has neither), every reference resolving to a definition, and
// the multi-type leaves written as upstream's v2 writes them.
func TestSwaggerDefinitionsSpelling(t *testing.T) {
	defs := SwaggerDefinitions(swaggerKinds)
	raw, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	for _, forbidden := range []string{`"allOf"`, `"oneOf"`, "#/components/schemas/"} {
		if strings.Contains(text, forbidden) {
			t.Errorf("v2 definitions contain %s", forbidden)
		}
	}

	var walk func(path string, s *Schema)
	walk = func(path string, s *Schema) {
		if s == nil {
			return
		}
		if s.Ref != "" {
			name, ok := strings.CutPrefix(s.Ref, "#/definitions/")
			if !ok || defs[name] == nil {
				t.Errorf("%s: $ref %q does not name a definition", path, s.Ref)
			}
			if s.Type != "" {
				t.Errorf("%s: a $ref with a type (%q) is rejected by kubectl's parser", path, s.Type)
			}
		}
		walk(path+"[]", s.Items)
		walk(path+"{}", s.AdditionalProperties)
		for name, p := range s.Properties {
			walk(path+"."+name, p)
		}
	}
	for name, s := range defs {
		walk(name, s)
	}

	deployment := defs["io.k8s.api.apps.v1.Deployment"]
	if deployment == nil || !reflect.DeepEqual(deployment.GroupVersionKinds, []GroupVersionKind{{"apps", "v1", "Deployment"}}) {
		t.Fatalf("Deployment definition = %+v", deployment)
	}
	conditions := defs["io.k8s.api.discovery.v1.Endpoint"].Properties["conditions"]
	if conditions.Ref != "#/definitions/io.k8s.api.discovery.v1.EndpointConditions" || conditions.Description == "" || conditions.AllOf != nil {
		t.Errorf("Endpoint.conditions = %+v, want a bare $ref with its description", conditions)
	}
	containers := defs["io.k8s.api.core.v1.PodSpec"].Properties["containers"]
	if containers.Type != "array" || containers.Items.Ref != "#/definitions/io.k8s.api.core.v1.Container" ||
		containers.PatchStrategy != "merge" || containers.PatchMergeKey != "name" {
		t.Errorf("PodSpec.containers = %+v, want an array of Container merged by name", containers)
	}
	for name, want := range map[string][2]string{
		"io.k8s.apimachinery.pkg.api.resource.Quantity":   {"string", ""},
		"io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"string", "int-or-string"},
		"io.k8s.apimachinery.pkg.apis.meta.v1.Time":       {"string", "date-time"},
	} {
		if s := defs[name]; s == nil || s.Type != want[0] || s.Format != want[1] {
			t.Errorf("%s = %+v, want type %q format %q", name, s, want[0], want[1])
		}
	}

	// The v3 schemas are not changed by the translation.
	v3 := ComponentSchemas(swaggerKinds)
	if len(v3["io.k8s.api.core.v1.Pod"].Properties["spec"].AllOf) != 1 {
		t.Error("ComponentSchemas lost its allOf after SwaggerDefinitions")
	}
}
