package validation

import (
	"strings"
	"testing"

	"kplane/pkg/api"
)

// validCRD is a CRD that passes validation; tests break one thing each.
func validCRD() *api.CustomResourceDefinition {
	return &api.CustomResourceDefinition{
		ObjectMeta: api.ObjectMeta{Name: "widgets.example.com"},
		Spec: api.CustomResourceDefinitionSpec{Group: "example.com", Scope: api.ClusterScoped,
			Names: api.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []api.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &api.CustomResourceValidation{OpenAPIV3Schema: &api.JSONSchemaProps{Type: "object"}}}}},
		Status: api.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}},
	}
}

// TestValidateCustomResourceDefinition: one broken rule each, with
// upstream's field path and message.
func TestValidateCustomResourceDefinition(t *testing.T) {
	if errs := validateCustomResourceDefinition(validCRD()); len(errs) != 0 {
		t.Fatalf("valid CRD refused: %v", errs.ToAggregateString())
	}
	cases := []struct {
		name   string
		change func(*api.CustomResourceDefinition)
		want   string
	}{
		{"no versions", func(c *api.CustomResourceDefinition) { c.Spec.Versions = nil }, "spec.versions: Required value"},
		{"stored version unknown", func(c *api.CustomResourceDefinition) { c.Status.StoredVersions = []string{"v1", "v0"} },
			`status.storedVersions[1]: Invalid value: "v0": must appear in spec.versions`},
		{"storage version not stored", func(c *api.CustomResourceDefinition) { c.Status.StoredVersions = []string{"v2"} },
			`status.storedVersions: Invalid value: "v1": must have the storage version v1`},
		{"scale path outside spec", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Subresources = &api.CustomResourceSubresources{Scale: &api.CustomResourceSubresourceScale{SpecReplicasPath: ".status.replicas", StatusReplicasPath: ".status.replicas"}}
		}, `spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec`},
		{"kind equals listKind", func(c *api.CustomResourceDefinition) { c.Spec.Names.ListKind = "Widget" },
			`spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same`},
		{"bad short name", func(c *api.CustomResourceDefinition) { c.Spec.Names.ShortNames = []string{"W"} },
			`spec.names.shortNames[0]: Invalid value: "W"`},
		{"status root not an object", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Subresources = &api.CustomResourceSubresources{Status: &api.CustomResourceSubresourceStatus{}}
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Type = "string"
		}, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`},
		{"selectable field twice", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].SelectableFields = []api.SelectableField{{JSONPath: ".spec.color"}, {JSONPath: ".spec.color"}}
		}, `spec.versions[0].selectableFields[1].jsonPath: Duplicate value: ".spec.color"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			crd := validCRD()
			c.change(crd)
			got := validateCustomResourceDefinition(crd).ToAggregateString()
			if !strings.Contains(got, c.want) {
				t.Errorf("errors %q do not contain %q", got, c.want)
			}
		})
	}
}

// TestValidateCustomResourceDefinitionUpdate: scope and kind are fixed
// once Established, group and plural always.
func TestValidateCustomResourceDefinitionUpdate(t *testing.T) {
	old := validCRD()
	old.ResourceVersion = "5"
	old.Status.Conditions = []api.CustomResourceDefinitionCondition{{Type: api.Established, Status: api.ConditionTrue}}
	crd := validCRD()
	crd.ResourceVersion = "5"
	crd.Spec.Scope, crd.Spec.Names.Kind, crd.Spec.Names.ListKind = api.NamespaceScoped, "Gadget", "GadgetList"
	got := validateCustomResourceDefinitionUpdate(crd, old).ToAggregateString()
	for _, want := range []string{`spec.scope: Invalid value: "Namespaced": field is immutable`, `spec.names.kind: Invalid value: "Gadget": field is immutable`} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %q do not contain %q", got, want)
		}
	}
	old.Status.Conditions = nil
	if errs := validateCustomResourceDefinitionUpdate(crd, old); len(errs) != 0 {
		t.Errorf("before Established, scope and kind may change: %s", errs.ToAggregateString())
	}
}
