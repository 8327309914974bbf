package apiserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/test/framework"
)

// validatedCronTabCRD is crontabCRD with a schema that constrains values:
// a pattern, an enum, a maximum, a default, a required field, and two CEL
// rules (one a transition rule on oldSelf).
func validatedCronTabCRD(change func(*api.CustomResourceDefinition)) []byte {
	return crontabCRD(func(c *api.CustomResourceDefinition) {
		one, ten := 1.0, 10.0
		red, blue := json.RawMessage(`"red"`), json.RawMessage(`"blue"`)
		c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = api.JSONSchemaProps{
			Type: "object", Required: []string{"cronSpec"},
			Properties: map[string]api.JSONSchemaProps{
				"cronSpec": {Type: "string", Pattern: `^(\S+ ){4}\S+$`,
					XValidations: []api.ValidationRule{{Rule: "self == oldSelf", Message: "cronSpec is immutable"}}},
				"image":       {Type: "string", Default: json.RawMessage(`"nginx"`)},
				"replicas":    {Type: "integer", Minimum: &one, Maximum: &ten},
				"color":       {Type: "string", Enum: []json.RawMessage{red, blue}},
				"minReplicas": {Type: "integer"},
			},
			XValidations: []api.ValidationRule{{Rule: "!has(self.minReplicas) || !has(self.replicas) || self.minReplicas <= self.replicas",
				Message: "minReplicas must not exceed replicas"}},
		}
		if change != nil {
			change(c)
		}
	})
}

// TestCustomResourceSchemaChecks: the apiserver's real schema checks
// (packages structural and cel) on a CRD and its objects — a
// non-structural schema and a rule that does not compile are refused; an
// object is pruned and defaulted; every violation of the schema and of the
// CEL rules is listed in one 422 with upstream's wording; a transition
// rule sees the stored object.
func TestCustomResourceSchemaChecks(t *testing.T) {
	a := framework.StartAPIServer(t)

	resp := a.Do(t, http.MethodPost, crdPath, validatedCronTabCRD(func(c *api.CustomResourceDefinition) {
		spec := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		spec.Properties["loose"] = api.JSONSchemaProps{}
		c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	}))
	if msg := statusMessage(resp.Body); resp.Code != http.StatusUnprocessableEntity || !strings.Contains(msg, "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[loose].type: Required value: must not be empty for specified object fields") {
		t.Errorf("non-structural schema: %d %s", resp.Code, msg)
	}
	resp = a.Do(t, http.MethodPost, crdPath, validatedCronTabCRD(func(c *api.CustomResourceDefinition) {
		spec := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		spec.XValidations = []api.ValidationRule{{Rule: "self.nosuchfield > 1"}}
		c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	}))
	if msg := statusMessage(resp.Body); resp.Code != http.StatusUnprocessableEntity || !strings.Contains(msg, "compilation failed") {
		t.Errorf("rule that does not compile: %d %s", resp.Code, msg)
	}

	establishCRD(t, a, validatedCronTabCRD(nil))
	created := object(t, a.Do(t, http.MethodPost, crontabs, []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab",
		"metadata":{"name":"ok"},"spec":{"cronSpec":"* * * * *","replicas":2,"extra":"dropped"}}`)), http.StatusCreated)
	if field(created, "spec.extra") != nil || field(created, "spec.image") != "nginx" {
		t.Errorf("created %v: want spec.extra pruned and spec.image defaulted", created)
	}

	resp = a.Do(t, http.MethodPost, crontabs, []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab",
		"metadata":{"name":"bad"},"spec":{"cronSpec":"hourly","replicas":11,"color":"pink","minReplicas":12}}`))
	if resp.Code != http.StatusUnprocessableEntity {
		t.Fatalf("invalid create: %d %s, want 422", resp.Code, resp.Body)
	}
	msg := statusMessage(resp.Body)
	for _, want := range []string{
		`CronTab.stable.example.com "bad" is invalid: [`,
		`spec.cronSpec: Invalid value: "hourly": spec.cronSpec in body should match '^(\S+ ){4}\S+$'`,
		`spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`,
		`spec.color: Unsupported value: "pink": supported values: "red", "blue"`,
		`spec: Invalid value: "object": minReplicas must not exceed replicas`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	resp = a.Do(t, http.MethodPost, crontabs, []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"empty"},"spec":{}}`))
	if msg := statusMessage(resp.Body); resp.Code != http.StatusUnprocessableEntity || !strings.Contains(msg, "spec.cronSpec: Required value") {
		t.Errorf("create without the required field: %d %s", resp.Code, msg)
	}

	resp = a.Do(t, http.MethodPatch, crontabs+"/ok", []byte(`{"spec":{"cronSpec":"0 0 * * *"}}`), "Content-Type", "application/merge-patch+json")
	if msg := statusMessage(resp.Body); resp.Code != http.StatusUnprocessableEntity || !strings.Contains(msg, `spec.cronSpec: Invalid value: "string": cronSpec is immutable`) {
		t.Errorf("update against the transition rule: %d %s", resp.Code, msg)
	}
	if got := object(t, a.Do(t, http.MethodPatch, crontabs+"/ok", []byte(`{"spec":{"replicas":3}}`), "Content-Type", "application/merge-patch+json"), http.StatusOK); field(got, "spec.replicas") != int64(3) {
		t.Errorf("allowed update = %v", got)
	}
}
