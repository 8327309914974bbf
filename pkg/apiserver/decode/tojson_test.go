package decode

import (
	"errors"
	"testing"
)

// TestToJSONSniffsTheBody checks that the Content-Type does not decide how
// a body is read: JSON passes through and YAML is converted whatever the
// header says, and only binary encodings are refused.
func TestToJSONSniffsTheBody(t *testing.T) {
	tests := []struct {
		name        string
		body        string
		contentType string
		want        string
	}{
		{"JSON labelled YAML", `{"a":1.50}`, "application/yaml", `{"a":1.50}`},
		{"YAML without a content type", "kind: Pod\n", "", `{"kind":"Pod"}`},
		{"YAML labelled JSON", "kind: Pod\n", "application/json", `{"kind":"Pod"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ToJSON([]byte(tc.body), tc.contentType)
			if err != nil {
				t.Fatalf("ToJSON: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("ToJSON = %s, want %s", got, tc.want)
			}
		})
	}

	for contentType, mediaType := range map[string]string{
		"application/cbor": "application/cbor",
		"application/vnd.kubernetes.protobuf; charset=x": "application/vnd.kubernetes.protobuf",
	} {
		var unsupported *UnsupportedMediaTypeError
		if _, err := ToJSON([]byte("\x0a\x02v1"), contentType); !errors.As(err, &unsupported) || unsupported.ContentType != mediaType {
			t.Errorf("%s should be an UnsupportedMediaTypeError for %s, got %v", contentType, mediaType, err)
		}
	}
	if _, err := ToJSON([]byte("# only a comment\n"), "application/yaml"); !errors.Is(err, ErrEmptyBody) {
		t.Errorf("a body of comments: error = %v, want ErrEmptyBody", err)
	}
}

func TestToJSONThenIntoDecodesASeedManifest(t *testing.T) {
	manifest := `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 2
  containers:
  - name: nginx
    image: nginx:1.27
    ports:
    - containerPort: 80
    env:
    - name: MODE
      value: "on"
`
	body, err := ToJSON([]byte(manifest), "application/yaml")
	if err != nil {
		t.Fatal(err)
	}
	var pod testPod
	warnings, err := Into(body, &pod, true)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("Into: %v %v", warnings, err)
	}
	c := pod.Spec.Containers[0]
	if pod.Name != "web" || pod.Labels["app"] != "web" || *pod.Spec.Replicas != 2 ||
		c.Image != "nginx:1.27" || c.Ports[0].ContainerPort != 80 || c.Env[0].Value != "on" {
		t.Errorf("decoded %+v", pod)
	}
}
