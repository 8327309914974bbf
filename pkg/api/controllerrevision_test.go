package api

import (
	"encoding/json"
	"testing"
)

func revisionTemplate(image string) *PodTemplateSpec {
	return &PodTemplateSpec{
		ObjectMeta: ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       PodSpec{Containers: []Container{{Name: "nginx", Image: image}}},
	}
}

func TestRevisionDataIsReplacePatch(t *testing.T) {
	data, err := RevisionData(revisionTemplate("nginx:1"))
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]map[string]map[string]any
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatalf("data %s: %v", data, err)
	}
	tmpl := decoded["spec"]["template"]
	if tmpl["$patch"] != "replace" {
		t.Errorf("$patch = %v, want replace; data %s", tmpl["$patch"], data)
	}
	if _, ok := tmpl["spec"]; !ok {
		t.Errorf("template has no spec: %s", data)
	}
}

func TestTemplateFromRevisionRoundTrip(t *testing.T) {
	want := revisionTemplate("nginx:2")
	data, err := RevisionData(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := TemplateFromRevision(&ControllerRevision{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Containers[0].Image != "nginx:2" || got.Labels["app"] != "web" {
		t.Errorf("round trip gave %+v", got)
	}
}

// The bytes are what `rollout undo` compares: keys sorted, no spaces, and
// the null creationTimestamp upstream's encoding also writes.
func TestRevisionDataBytes(t *testing.T) {
	data, err := RevisionData(revisionTemplate("nginx:1"))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:1","name":"nginx","resources":{}}]}}}}`
	if string(data) != want {
		t.Errorf("data = %s\nwant   %s", data, want)
	}
}
