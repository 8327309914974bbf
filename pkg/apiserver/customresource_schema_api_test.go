package apiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver"
	"kplane/test/framework"
)

// fakeSchema stands in for the structural and cel packages with a few
// fixed rules, to show where the apiserver calls each and what it does
// with the answers.
type fakeSchema struct{}

func (fakeSchema) ValidateCRDSchema(path string, s *api.JSONSchemaProps) apierrors.FieldErrorList {
	if s.Type == "" {
		return apierrors.FieldErrorList{apierrors.Required(path+".type", "must not be empty at the root")}
	}
	return nil
}

func (fakeSchema) Validate(_ *api.JSONSchemaProps, obj map[string]any) apierrors.FieldErrorList {
	var errs apierrors.FieldErrorList
	if obj["kind"] != "CronTab" || obj["metadata"] == nil {
		errs = append(errs, apierrors.Invalid("kind", obj["kind"], "the schema sees the whole object"))
	}
	if n, _ := field(obj, "spec.replicas").(int64); n > 10 {
		errs = append(errs, apierrors.Invalid("spec.replicas", n, "should be less than or equal to 10"))
	}
	if s, ok := field(obj, "spec.cronSpec").(string); ok && s == "" {
		errs = append(errs, apierrors.Invalid("spec.cronSpec", s, "should be at least 1 chars long"))
	}
	return errs
}

func (fakeSchema) Prune(obj map[string]any, _ *api.JSONSchemaProps) []string {
	spec, _ := obj["spec"].(map[string]any)
	if _, ok := spec["unknown"]; ok {
		delete(spec, "unknown")
		return []string{"spec.unknown"}
	}
	return nil
}

func (fakeSchema) Default(obj map[string]any, _ *api.JSONSchemaProps) {
	if spec, ok := obj["spec"].(map[string]any); ok {
		if _, set := spec["image"]; !set {
			spec["image"] = "default-image"
		}
	}
}

func (fakeSchema) ValidateRules(_ *api.JSONSchemaProps, obj, old map[string]any) apierrors.FieldErrorList {
	if old != nil && field(obj, "spec.cronSpec") != field(old, "spec.cronSpec") {
		return apierrors.FieldErrorList{apierrors.Invalid("spec.cronSpec", field(obj, "spec.cronSpec"), "cronSpec is immutable")}
	}
	return nil
}

// TestCustomResourceSchemaSeam: a CRD's schemas are checked on write; a
// custom resource's unknown fields are pruned with a warning (a 400 with
// fieldValidation=Strict), defaults are filled in, and the schema's and
// the CEL rules' errors — the latter seeing the old object on an update
// — are listed together in one 422 Invalid Status.
func TestCustomResourceSchemaSeam(t *testing.T) {
	defer apiserver.SetCustomResourceSchema(fakeSchema{})()
	a := framework.StartAPIServer(t)

	resp := a.Do(t, http.MethodPost, crdPath, crontabCRD(func(c *api.CustomResourceDefinition) {
		c.Spec.Versions[0].Schema.OpenAPIV3Schema.Type = ""
		c.Spec.Versions[0].Subresources.Status = nil
	}))
	if resp.Code != http.StatusUnprocessableEntity || !strings.Contains(statusMessage(resp.Body), "spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at the root") {
		t.Errorf("CRD with a schema the structural check refuses: %d %s", resp.Code, resp.Body)
	}
	establishCRD(t, a, crontabCRD(nil))

	resp = a.Do(t, http.MethodPost, crontabs, []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x"},"spec":{"cronSpec":"* * * * *","replicas":1,"unknown":true}}`))
	created := object(t, resp, http.StatusCreated)
	if field(created, "spec.unknown") != nil || field(created, "spec.image") != "default-image" {
		t.Errorf("created = %v; want spec.unknown pruned and spec.image defaulted", created)
	}
	if warning := resp.Header.Get("Warning"); warning != `299 - "unknown field \"spec.unknown\""` {
		t.Errorf("Warning header = %q, want the pruned field", resp.Header.Values("Warning"))
	}
	resp = a.Do(t, http.MethodPost, crontabs+"?fieldValidation=Strict", []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"y"},"spec":{"unknown":1}}`))
	if resp.Code != http.StatusBadRequest || !strings.Contains(statusMessage(resp.Body), `CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: unknown field "spec.unknown"`) {
		t.Errorf("strict create: %d %s", resp.Code, resp.Body)
	}

	resp = a.Do(t, http.MethodPost, crontabs, []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"z"},"spec":{"cronSpec":"","replicas":11}}`))
	if resp.Code != http.StatusUnprocessableEntity {
		t.Fatalf("invalid create: %d %s, want 422", resp.Code, resp.Body)
	}
	message := statusMessage(resp.Body)
	for _, want := range []string{`CronTab.stable.example.com "z" is invalid: [`, `spec.replicas: Invalid value: 11: should be less than or equal to 10`, `spec.cronSpec: Invalid value: "": should be at least 1 chars long`} {
		if !strings.Contains(message, want) {
			t.Errorf("message %q lacks %q", message, want)
		}
	}

	resp = a.Do(t, http.MethodPatch, crontabs+"/x", []byte(`{"spec":{"cronSpec":"0 0 * * *"}}`), "Content-Type", "application/merge-patch+json")
	if resp.Code != http.StatusUnprocessableEntity || !strings.Contains(statusMessage(resp.Body), `spec.cronSpec: Invalid value: "0 0 * * *": cronSpec is immutable`) {
		t.Errorf("update against a transition rule: %d %s", resp.Code, resp.Body)
	}
	if got := object(t, a.Do(t, http.MethodPatch, crontabs+"/x", []byte(`{"spec":{"replicas":2}}`), "Content-Type", "application/merge-patch+json"), http.StatusOK); field(got, "spec.replicas") != int64(2) {
		t.Errorf("allowed update = %v", got)
	}
}
