package apiserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/test/framework"
)

// applyCronTabCRD is the CronTab CRD with lists of each type: ports a
// list-type map keyed by name, tags a set, args atomic (no list type).
func applyCronTabCRD() []byte {
	return crontabCRD(func(crd *api.CustomResourceDefinition) {
		setType, mapType := "set", "map"
		spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		spec.Properties["ports"] = api.JSONSchemaProps{Type: "array", XListType: &mapType, XListMapKeys: []string{"name"},
			Items: &api.JSONSchemaPropsOrArray{Schema: &api.JSONSchemaProps{Type: "object", Required: []string{"name"},
				Properties: map[string]api.JSONSchemaProps{"name": {Type: "string"}, "port": {Type: "integer"}}}}}
		spec.Properties["tags"] = api.JSONSchemaProps{Type: "array", XListType: &setType,
			Items: &api.JSONSchemaPropsOrArray{Schema: &api.JSONSchemaProps{Type: "string"}}}
		spec.Properties["args"] = api.JSONSchemaProps{Type: "array",
			Items: &api.JSONSchemaPropsOrArray{Schema: &api.JSONSchemaProps{Type: "string"}}}
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	})
}

// applyCronTab sends a server-side apply of a YAML body as manager.
func applyCronTab(t *testing.T, a *framework.APIServer, manager, query, yaml string) framework.Response {
	t.Helper()
	path := crontabs + "/tab?fieldManager=" + manager + query
	return a.Do(t, http.MethodPatch, path, []byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: tab\n"+yaml),
		"Content-Type", "application/apply-patch+yaml")
}

// managerEntry finds the managedFields entry of manager and operation.
func managerEntry(obj map[string]any, manager, operation string) map[string]any {
	entries, _ := field(obj, "metadata.managedFields").([]any)
	for _, e := range entries {
		entry, _ := e.(map[string]any)
		if entry["manager"] == manager && entry["operation"] == operation {
			return entry
		}
	}
	return nil
}

// TestCustomResourceServerSideApply: an apply creates the object and
// records its manager's fields; a second manager changing a field the
// first owns is refused with upstream's 409 and causes; one applying other
// items of a keyed list or a set merges with them; force takes the field;
// a manager that stops applying an item removes it; a merge patch's writer
// owns what it changed, and an apply conflicts with it by version and time.
func TestCustomResourceServerSideApply(t *testing.T) {
	a := framework.StartAPIServer(t)
	establishCRD(t, a, applyCronTabCRD())

	created := object(t, applyCronTab(t, a, "alice", "", `spec:
  cronSpec: "* * * * */5"
  replicas: 1
  ports: [{name: http, port: 80}]
  tags: [a]
  args: [x, y]
`), http.StatusCreated)
	alice := managerEntry(created, "alice", "Apply")
	if alice == nil || alice["fieldsType"] != "FieldsV1" || alice["apiVersion"] != "stable.example.com/v1" {
		t.Fatalf("managedFields = %v, want an Apply entry of alice", field(created, "metadata.managedFields"))
	}
	wantFields := map[string]any{"f:spec": map[string]any{
		"f:cronSpec": map[string]any{}, "f:replicas": map[string]any{}, "f:args": map[string]any{},
		"f:tags":  map[string]any{`v:"a"`: map[string]any{}},
		"f:ports": map[string]any{`k:{"name":"http"}`: map[string]any{".": map[string]any{}, "f:name": map[string]any{}, "f:port": map[string]any{}}},
	}}
	if !reflect.DeepEqual(alice["fieldsV1"], wantFields) {
		got, _ := json.Marshal(alice["fieldsV1"])
		t.Errorf("alice's fieldsV1 = %s", got)
	}

	// Applying the same again answers 200 and writes nothing.
	again := object(t, applyCronTab(t, a, "alice", "", "spec:\n  cronSpec: \"* * * * */5\"\n  replicas: 1\n  ports: [{name: http, port: 80}]\n  tags: [a]\n  args: [x, y]\n"), http.StatusOK)
	if rv := field(again, "metadata.resourceVersion"); rv != field(created, "metadata.resourceVersion") {
		t.Errorf("a no-op apply wrote the object: resourceVersion %v, was %v", rv, field(created, "metadata.resourceVersion"))
	}

	resp := applyCronTab(t, a, "bob", "", "spec:\n  replicas: 2\n")
	if resp.Code != http.StatusConflict {
		t.Fatalf("bob's apply: %d %s, want 409", resp.Code, resp.Body)
	}
	var status api.Status
	if err := json.Unmarshal(resp.Body, &status); err != nil {
		t.Fatal(err)
	}
	if want := `Apply failed with 1 conflict: conflict with "alice": .spec.replicas`; status.Message != want || status.Reason != "Conflict" {
		t.Errorf("conflict = %q (%s), want %q", status.Message, status.Reason, want)
	}
	if status.Details == nil || len(status.Details.Causes) != 1 || status.Details.Causes[0] != (api.StatusCause{Type: "FieldManagerConflict", Message: `conflict with "alice"`, Field: ".spec.replicas"}) {
		t.Errorf("causes = %+v", status.Details)
	}
	resp = applyCronTab(t, a, "bob", "", "spec:\n  replicas: 2\n  args: [z]\n")
	if want := "Apply failed with 2 conflicts: conflicts with \"alice\":\n- .spec.args\n- .spec.replicas"; statusMessage(resp.Body) != want {
		t.Errorf("two conflicts: %d %q, want %q", resp.Code, statusMessage(resp.Body), want)
	}
	// The same value is no conflict: both own it.
	object(t, applyCronTab(t, a, "bob", "", "spec:\n  replicas: 1\n"), http.StatusOK)

	merged := object(t, applyCronTab(t, a, "bob", "", "spec:\n  ports: [{name: https, port: 443}]\n  tags: [b]\n"), http.StatusOK)
	if got := toStrings(field(merged, "spec.tags")); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("tags = %v, want the set's union [a b]", got)
	}
	ports, _ := field(merged, "spec.ports").([]any)
	if len(ports) != 2 || ports[0].(map[string]any)["name"] != "http" || ports[1].(map[string]any)["name"] != "https" {
		t.Errorf("ports = %v, want http and https merged by name", ports)
	}

	forced := object(t, applyCronTab(t, a, "bob", "&force=true", "spec:\n  replicas: 3\n  args: [z]\n  ports: [{name: https, port: 443}]\n  tags: [b]\n"), http.StatusOK)
	if fmt.Sprint(field(forced, "spec.replicas")) != "3" || !reflect.DeepEqual(toStrings(field(forced, "spec.args")), []string{"z"}) {
		t.Errorf("forced spec = %v", field(forced, "spec"))
	}
	aliceSpec, _ := field(managerEntry(forced, "alice", "Apply"), "fieldsV1.f:spec").(map[string]any)
	if _, still := aliceSpec["f:replicas"]; still {
		t.Errorf("alice still owns replicas after bob forced it: %v", aliceSpec)
	}

	// alice stops applying her port and tag: they go; bob's stay.
	dropped := object(t, applyCronTab(t, a, "alice", "", "spec:\n  cronSpec: \"* * * * */5\"\n"), http.StatusOK)
	ports, _ = field(dropped, "spec.ports").([]any)
	if len(ports) != 1 || ports[0].(map[string]any)["name"] != "https" {
		t.Errorf("ports = %v, want only bob's https", ports)
	}
	if got := toStrings(field(dropped, "spec.tags")); !reflect.DeepEqual(got, []string{"b"}) {
		t.Errorf("tags = %v, want [b]", got)
	}
	if fmt.Sprint(field(dropped, "spec.replicas")) != "3" {
		t.Errorf("replicas = %v, want bob's 3", field(dropped, "spec.replicas"))
	}

	// A merge patch records its writer as an Update manager.
	patched := object(t, a.Do(t, http.MethodPatch, crontabs+"/tab?fieldManager=carol", []byte(`{"spec":{"image":"nginx"}}`),
		"Content-Type", "application/merge-patch+json"), http.StatusOK)
	if carol := managerEntry(patched, "carol", "Update"); carol == nil || field(carol, "fieldsV1.f:spec.f:image") == nil {
		t.Fatalf("managedFields = %v, want carol's Update owning spec.image", field(patched, "metadata.managedFields"))
	}
	resp = applyCronTab(t, a, "alice", "", "spec:\n  cronSpec: \"* * * * */5\"\n  image: busybox\n")
	if msg := statusMessage(resp.Body); resp.Code != http.StatusConflict ||
		!strings.HasPrefix(msg, `Apply failed with 1 conflict: conflict with "carol" using stable.example.com/v1 at `) || !strings.HasSuffix(msg, ": .spec.image") {
		t.Errorf("apply over carol's field: %d %q", resp.Code, msg)
	}
}

// TestCustomResourceApplyStatusAndErrors: an apply to /status owns status
// only (spec in it is ignored), an apply needs a fieldManager (upstream's
// 422), and a schema violation is refused as on any write.
func TestCustomResourceApplyStatusAndErrors(t *testing.T) {
	a := framework.StartAPIServer(t)
	establishCRD(t, a, applyCronTabCRD())
	object(t, applyCronTab(t, a, "alice", "", "spec:\n  replicas: 1\n"), http.StatusCreated)

	resp := a.Do(t, http.MethodPatch, crontabs+"/tab/status?fieldManager=counter",
		[]byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: tab\nspec:\n  replicas: 9\nstatus:\n  replicas: 1\n"),
		"Content-Type", "application/apply-patch+yaml")
	obj := object(t, resp, http.StatusOK)
	if fmt.Sprint(field(obj, "status.replicas")) != "1" || fmt.Sprint(field(obj, "spec.replicas")) != "1" {
		t.Errorf("after the status apply: spec %v status %v", field(obj, "spec"), field(obj, "status"))
	}
	counter := managerEntry(obj, "counter", "Apply")
	if counter == nil || counter["subresource"] != "status" || field(counter, "fieldsV1.f:spec") != nil {
		t.Errorf("counter's entry = %v, want status only, subresource status", counter)
	}

	resp = a.Do(t, http.MethodPatch, crontabs+"/tab", []byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: tab\n"),
		"Content-Type", "application/apply-patch+yaml")
	if want := `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`; resp.Code != http.StatusUnprocessableEntity || statusMessage(resp.Body) != want {
		t.Errorf("apply without fieldManager: %d %q, want 422 %q", resp.Code, statusMessage(resp.Body), want)
	}
	resp = a.Do(t, http.MethodPatch, crontabs+"/tab?force=true", []byte(`{"spec":{"replicas":2}}`), "Content-Type", "application/merge-patch+json")
	if want := `PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`; resp.Code != http.StatusUnprocessableEntity || statusMessage(resp.Body) != want {
		t.Errorf("merge patch with force: %d %q, want 422 %q", resp.Code, statusMessage(resp.Body), want)
	}
	// An integer above 2^53 goes through the merge unrounded.
	big := object(t, applyCronTab(t, a, "alice", "", "spec:\n  replicas: 9007199254740993\n"), http.StatusOK)
	if got := fmt.Sprint(field(big, "spec.replicas")); got != "9007199254740993" {
		t.Errorf("replicas = %s, want 9007199254740993", got)
	}
	resp = applyCronTab(t, a, "alice", "", "spec:\n  replicas: many\n")
	if resp.Code != http.StatusUnprocessableEntity {
		t.Errorf("apply of a string replicas: %d %s, want 422", resp.Code, resp.Body)
	}
}
