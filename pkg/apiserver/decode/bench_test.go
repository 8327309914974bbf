package decode

import (
	"encoding/json"
	"reflect"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/api/schema"
)

// benchConfigMap is a typical ConfigMap body of about 1 KiB: a few labels
// and annotations, some short settings and one embedded config file.
const benchConfigMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web-config","namespace":"shop",` +
	`"labels":{"app":"web","tier":"frontend","app.kubernetes.io/managed-by":"kubectl"},` +
	`"annotations":{"description":"settings for the web tier","owner":"team-storefront@example.com"}},` +
	`"data":{"LOG_LEVEL":"info","WORKERS":"4","CACHE_TTL":"300s","FEATURE_FLAGS":"checkout-v2,search-suggest",` +
	`"DATABASE_HOST":"postgres.shop.svc.cluster.local","DATABASE_PORT":"5432",` +
	`"nginx.conf":"worker_processes auto;\nevents {\n  worker_connections 1024;\n}\nhttp {\n  server {\n    listen 80;\n` +
	`    server_name web.shop.example.com;\n    location / {\n      proxy_pass http://127.0.0.1:8080;\n` +
	`      proxy_set_header Host $host;\n      proxy_set_header X-Real-IP $remote_addr;\n    }\n` +
	`    location /healthz {\n      return 200 \"ok\\n\";\n    }\n    location /static/ {\n      root /srv/www;\n` +
	`      expires 7d;\n      add_header Cache-Control \"public\";\n    }\n  }\n}\n"}}`

// benchBodies are the bodies BenchmarkInto and BenchmarkUnmarshal decode,
// each with a function that decodes into a fresh object of its type.
func benchBodies(b *testing.B) []struct {
	name   string
	body   []byte
	decode func(body []byte, into func([]byte, any) error) error
} {
	deployment, err := ToJSON([]byte(seedDeployment), "application/yaml")
	if err != nil {
		b.Fatal(err)
	}
	return []struct {
		name   string
		body   []byte
		decode func(body []byte, into func([]byte, any) error) error
	}{
		{"Deployment", deployment, func(body []byte, into func([]byte, any) error) error {
			var d api.Deployment
			return into(body, &d)
		}},
		{"ConfigMap", []byte(benchConfigMap), func(body []byte, into func([]byte, any) error) error {
			var c api.ConfigMap
			return into(body, &c)
		}},
	}
}

// BenchmarkInto measures Into in strict mode on bodies without unknown
// fields, the common case. Compare with BenchmarkUnmarshal: the difference
// is what finding unknown and duplicate fields costs.
func BenchmarkInto(b *testing.B) {
	into := func(body []byte, obj any) error {
		_, err := Into(body, obj, true)
		return err
	}
	for _, bb := range benchBodies(b) {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.body)))
			b.ReportAllocs()
			for b.Loop() {
				if err := bb.decode(bb.body, into); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUnmarshal measures a plain json.Unmarshal of the same bodies,
// the floor BenchmarkInto is measured against.
func BenchmarkUnmarshal(b *testing.B) {
	for _, bb := range benchBodies(b) {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.body)))
			b.ReportAllocs()
			for b.Loop() {
				if err := bb.decode(bb.body, json.Unmarshal); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIntoUnknownField measures the slow path: a body with one
// unknown field, which Into must find, report and prune.
func BenchmarkIntoUnknownField(b *testing.B) {
	body := []byte(benchConfigMap[:len(benchConfigMap)-1] + `,"extra":{"a":[1,2,3]}}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var c api.ConfigMap
		warnings, err := Into(body, &c, false)
		if err != nil || len(warnings) != 1 {
			b.Fatal(warnings, err)
		}
	}
}

// BenchmarkKnownFieldsOnly measures the fast path's scan alone: what Into
// adds to json.Unmarshal for a body without unknown fields.
func BenchmarkKnownFieldsOnly(b *testing.B) {
	types := map[string]reflect.Type{"Deployment": reflect.TypeFor[api.Deployment](), "ConfigMap": reflect.TypeFor[api.ConfigMap]()}
	for _, bb := range benchBodies(b) {
		typ := schema.Of(types[bb.name])
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.body)))
			b.ReportAllocs()
			for b.Loop() {
				if !knownFieldsOnly(bb.body, typ) {
					b.Fatal("knownFieldsOnly = false")
				}
			}
		})
	}
}
