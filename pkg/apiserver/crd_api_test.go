package apiserver_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/test/framework"
)

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// crontabCRD is upstream's documentation example, a namespaced CronTab in
// stable.example.com with one version v1, a status and a scale
// subresource and two printer columns; change adjusts it before encoding.
func crontabCRD(change func(*api.CustomResourceDefinition)) []byte {
	selector := ".status.labelSelector"
	crd := api.CustomResourceDefinition{
		TypeMeta:   api.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: api.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: api.CustomResourceDefinitionSpec{
			Group: "stable.example.com", Scope: api.NamespaceScoped,
			Names: api.CustomResourceDefinitionNames{Plural: "crontabs", Kind: "CronTab", ShortNames: []string{"ct"}, Categories: []string{"all"}},
			Versions: []api.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &api.CustomResourceValidation{OpenAPIV3Schema: &api.JSONSchemaProps{Type: "object",
					Properties: map[string]api.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]api.JSONSchemaProps{
							"cronSpec": {Type: "string"}, "image": {Type: "string"}, "replicas": {Type: "integer"}}},
						"status": {Type: "object", Properties: map[string]api.JSONSchemaProps{
							"replicas": {Type: "integer"}, "labelSelector": {Type: "string"}}},
					}}},
				Subresources: &api.CustomResourceSubresources{Status: &api.CustomResourceSubresourceStatus{},
					Scale: &api.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: &selector}},
				AdditionalPrinterColumns: []api.CustomResourceColumnDefinition{
					{Name: "Spec", Type: "string", JSONPath: ".spec.cronSpec"},
					{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
					{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
				},
				SelectableFields: []api.SelectableField{{JSONPath: ".spec.image"}},
			}},
		},
	}
	if change != nil {
		change(&crd)
	}
	b, _ := json.Marshal(crd)
	return b
}

// decodeCRD decodes a CRD response, or fails the test.
func decodeCRD(t *testing.T, body []byte) api.CustomResourceDefinition {
	t.Helper()
	var crd api.CustomResourceDefinition
	if err := json.Unmarshal(body, &crd); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return crd
}

// TestCRDCreateDefaultsAndStatus: a new CRD gets upstream's defaults
// (singular, listKind, conversion None), generation 1, storedVersions
// holding its storage version, and no status a client sent.
func TestCRDCreateDefaultsAndStatus(t *testing.T) {
	a := framework.StartAPIServer(t)
	resp := a.Do(t, http.MethodPost, crdPath, crontabCRD(func(c *api.CustomResourceDefinition) {
		c.Status.Conditions = []api.CustomResourceDefinitionCondition{{Type: api.Established, Status: api.ConditionTrue}}
	}))
	if resp.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.Code, resp.Body)
	}
	crd := decodeCRD(t, resp.Body)
	if crd.Spec.Names.Singular != "crontab" || crd.Spec.Names.ListKind != "CronTabList" {
		t.Errorf("names = %+v, want singular crontab and listKind CronTabList", crd.Spec.Names)
	}
	if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != api.NoneConverter {
		t.Errorf("conversion = %+v, want strategy None", crd.Spec.Conversion)
	}
	if crd.Generation != 1 {
		t.Errorf("generation = %d, want 1", crd.Generation)
	}
	if !slices.Equal(crd.Status.StoredVersions, []string{"v1"}) {
		t.Errorf("storedVersions = %v, want [v1]", crd.Status.StoredVersions)
	}
	if api.IsCRDConditionTrue(&crd, api.Established) {
		t.Errorf("a client-sent Established condition was kept: %+v", crd.Status.Conditions)
	}
	if len(crd.Finalizers) != 0 {
		t.Errorf("finalizers = %v; upstream adds the cleanup finalizer only on delete", crd.Finalizers)
	}
}

// TestCRDValidation: what upstream's CRD validation refuses, with its
// messages, and a conversion webhook refused honestly.
func TestCRDValidation(t *testing.T) {
	a := framework.StartAPIServer(t)
	cases := []struct {
		name   string
		change func(*api.CustomResourceDefinition)
		want   []string
	}{
		{"name not plural.group", func(c *api.CustomResourceDefinition) { c.Name = "crontab.stable.example.com" },
			[]string{`metadata.name: Invalid value: "crontab.stable.example.com": must be spec.names.plural+"."+spec.group`}},
		{"group without a dot", func(c *api.CustomResourceDefinition) { c.Spec.Group = "example"; c.Name = "crontabs.example" },
			[]string{`spec.group: Invalid value: "example": should be a domain with at least one dot`}},
		{"two storage versions", func(c *api.CustomResourceDefinition) {
			v2 := c.Spec.Versions[0]
			v2.Name = "v2"
			c.Spec.Versions = append(c.Spec.Versions, v2)
		}, []string{"spec.versions: Invalid value: \"v1,v2\": must have exactly one version marked as storage version"}},
		{"duplicate versions", func(c *api.CustomResourceDefinition) {
			v := c.Spec.Versions[0]
			v.Storage = false
			c.Spec.Versions = append(c.Spec.Versions, v)
		}, []string{"must contain unique version names"}},
		{"no schema", func(c *api.CustomResourceDefinition) { c.Spec.Versions[0].Schema = nil },
			[]string{"spec.versions[0].schema: Required value: schemas are required"}},
		{"bad scope and kind", func(c *api.CustomResourceDefinition) {
			c.Spec.Scope = "Global"
			c.Spec.Names.Kind = "Cron_Tab"
		}, []string{`spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"`,
			`spec.names.kind: Invalid value: "Cron_Tab": may have mixed case, but should otherwise match: `}},
		{"conversion webhook", func(c *api.CustomResourceDefinition) {
			c.Spec.Conversion = &api.CustomResourceConversion{Strategy: api.WebhookConverter}
		}, []string{"kplane does not support conversion webhooks yet"}},
		{"printer column type", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].AdditionalPrinterColumns[0].Type = "time"
		}, []string{`spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "time": must be one of boolean,date,integer,number,string`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := a.Do(t, http.MethodPost, crdPath, crontabCRD(c.change))
			if resp.Code != http.StatusUnprocessableEntity {
				t.Fatalf("create: %d %s, want 422", resp.Code, resp.Body)
			}
			var status api.Status
			_ = json.Unmarshal(resp.Body, &status)
			if status.Reason != "Invalid" || status.Details == nil || status.Details.Kind != "CustomResourceDefinition" {
				t.Errorf("status = %+v, want reason Invalid for kind CustomResourceDefinition", status)
			}
			for _, want := range c.want {
				if !strings.Contains(status.Message, want) {
					t.Errorf("message %q does not contain %q", status.Message, want)
				}
			}
		})
	}
}

// TestCRDTableAndUpdateRules: `kubectl get crd` prints NAME and CREATED AT;
// group and plural cannot change; a new storage version joins
// storedVersions instead of replacing the old one.
func TestCRDTableAndUpdateRules(t *testing.T) {
	a := framework.StartAPIServer(t)
	if resp := a.Do(t, http.MethodPost, crdPath, crontabCRD(nil)); resp.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.Code, resp.Body)
	}
	resp := a.Do(t, http.MethodGet, crdPath, nil, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	var table api.Table
	if err := json.Unmarshal(resp.Body, &table); err != nil || len(table.ColumnDefinitions) != 2 {
		t.Fatalf("table: %d %s", resp.Code, resp.Body)
	}
	if table.ColumnDefinitions[0].Name != "Name" || table.ColumnDefinitions[1].Name != "Created At" {
		t.Errorf("columns = %+v, want Name, Created At", table.ColumnDefinitions)
	}

	patch := `{"spec":{"group":"other.example.com"}}`
	resp = a.Do(t, http.MethodPatch, crdPath+"/crontabs.stable.example.com", []byte(patch), "Content-Type", "application/merge-patch+json")
	if resp.Code != http.StatusUnprocessableEntity || !strings.Contains(statusMessage(resp.Body), `spec.group: Invalid value: "other.example.com": field is immutable`) {
		t.Errorf("group change: %d %s, want 422 field is immutable", resp.Code, resp.Body)
	}

	patch = `{"spec":{"versions":[{"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object"}}},` +
		`{"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`
	resp = a.Do(t, http.MethodPatch, crdPath+"/crontabs.stable.example.com", []byte(patch), "Content-Type", "application/merge-patch+json")
	if resp.Code != http.StatusOK {
		t.Fatalf("new storage version: %d %s", resp.Code, resp.Body)
	}
	crd := decodeCRD(t, resp.Body)
	if !slices.Equal(crd.Status.StoredVersions, []string{"v1", "v2"}) || crd.Generation != 2 {
		t.Errorf("storedVersions = %v, generation %d; want [v1 v2] and 2", crd.Status.StoredVersions, crd.Generation)
	}
}

// statusMessage is the message of a Status body ("" when it is none).
func statusMessage(body []byte) string {
	var status api.Status
	_ = json.Unmarshal(body, &status)
	return status.Message
}
