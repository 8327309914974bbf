package cel

import "testing"

// websiteSchema is a typical custom resource with three rules: one on spec
// comparing two fields, one on a bounded string, one over a bounded list.
const websiteSchema = `
type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "self.replicas <= self.maxReplicas"
      message: replicas must not exceed maxReplicas
    properties:
      replicas: {type: integer}
      maxReplicas: {type: integer}
      domain:
        type: string
        maxLength: 253
        x-kubernetes-validations:
        - rule: "self.matches('^[a-z0-9.-]+$')"
      paths:
        type: array
        maxItems: 32
        items: {type: string, maxLength: 256}
        x-kubernetes-validations:
        - rule: "self.all(p, p.startsWith('/'))"
  status:
    type: object
    properties:
      ready: {type: boolean}
`

const websiteObject = `
apiVersion: example.com/v1
kind: Website
metadata: {name: shop, namespace: default, labels: {app: shop}}
spec:
  replicas: 3
  maxReplicas: 5
  domain: shop.example.com
  paths: [/, /cart, /checkout, /api]
status: {ready: true}
`

func BenchmarkValidateTypicalObject(b *testing.B) {
	v := mustCompile(b, websiteSchema)
	obj := mustObject(b, websiteObject)
	if errs := v.Validate(obj, nil); len(errs) != 0 {
		b.Fatalf("the benchmark object must be valid: %q", messages(errs))
	}
	b.ReportAllocs()
	for b.Loop() {
		if errs := v.Validate(obj, nil); len(errs) != 0 {
			b.Fatal(messages(errs))
		}
	}
}

func BenchmarkCompileTypicalSchema(b *testing.B) {
	s := mustSchema(b, websiteSchema)
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := Compile(s); len(errs) != 0 {
			b.Fatal(messages(errs))
		}
	}
}
