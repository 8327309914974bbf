package decode

import (
	"reflect"
	"testing"

	"kplane/pkg/api"
)

// The seeds' Deployment, as a student would curl it to the apiserver.
const seedDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ng-dep
  labels:
    app: ng-dep
spec:
  replicas: 4
  selector:
    matchLabels:
      dep: ng-dep-pod
  strategy:
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 1
  template:
    metadata:
      name: ng-dep-rs
      labels:
        dep: ng-dep-pod
    spec:
      containers:
      - name:  ng-c-dep
        image:  nginx
        ports:
        - containerPort:  80
        resources:
          requests:
            cpu: 100m
            memory: 64Mi
`

func TestIntoAPIDeployment(t *testing.T) {
	body, err := ToJSON([]byte(seedDeployment), "application/yaml")
	if err != nil {
		t.Fatal(err)
	}
	var deployment api.Deployment
	warnings, err := Into(body, &deployment, true)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("Into = %v, %v", warnings, err)
	}
	spec := deployment.Spec
	container := spec.Template.Spec.Containers[0]
	if deployment.Name != "ng-dep" || *spec.Replicas != 4 || spec.Selector.MatchLabels["dep"] != "ng-dep-pod" ||
		container.Image != "nginx" || container.Ports[0].ContainerPort != 80 {
		t.Errorf("decoded %+v", deployment)
	}
	if got := spec.Strategy.RollingUpdate.MaxSurge.String(); got != "25%" {
		t.Errorf("maxSurge = %q, want 25%%", got)
	}
	if got := spec.Strategy.RollingUpdate.MaxUnavailable.String(); got != "1" {
		t.Errorf("maxUnavailable = %q, want 1", got)
	}
	if cpu := container.Resources.Requests["cpu"]; cpu.String() != "100m" {
		t.Errorf("cpu request = %q, want 100m", cpu.String())
	}
}

func TestUnknownFieldsOfAPIPod(t *testing.T) {
	body := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","imagee":"nginx",` +
		`"resources":{"limits":{"cpu":"1"}},"livenessProbe":{"httpGet":{"port":"http","pathh":"/"}}}],"nodeName":"n","foo":1},"status":{}}`
	got, err := UnknownFields([]byte(body), reflect.TypeFor[api.Pod]())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`unknown field "spec.containers[0].imagee"`,
		`unknown field "spec.containers[0].livenessProbe.httpGet.pathh"`,
		`unknown field "spec.foo"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UnknownFields =\n%q\nwant\n%q", got, want)
	}
}

// BenchmarkIntoDeployment measures decoding a typical Deployment body, the
// work every create and update does before admission.
func BenchmarkIntoDeployment(b *testing.B) {
	body, err := ToJSON([]byte(seedDeployment), "application/yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var deployment api.Deployment
		if _, err := Into(body, &deployment, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToJSONDeployment measures converting the YAML manifest.
func BenchmarkToJSONDeployment(b *testing.B) {
	b.SetBytes(int64(len(seedDeployment)))
	for b.Loop() {
		if _, err := ToJSON([]byte(seedDeployment), "application/yaml"); err != nil {
			b.Fatal(err)
		}
	}
}
