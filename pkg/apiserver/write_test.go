package apiserver_test

import (
	"testing"

	"kplane/test/framework"
)

// TestRefusedWritesGiveBackAllocations: what admission allocates for a
// Service that then does not reach etcd — refused by validation, or only a
// dry run — is free for the next Service to take. Each step asks for the
// address or node port the step before it allocated and gave back.
func TestRefusedWritesGiveBackAllocations(t *testing.T) {
	a := framework.StartAPIServer(t)
	const services = "/api/v1/namespaces/default/services"
	steps := []struct {
		name, method, path, body string
		code                     int
	}{
		{"a create refused by validation", "POST", services,
			`{"metadata":{"name":"bad"},"spec":{"clusterIP":"10.96.100.100","ports":[{"port":70000}]}}`, 422},
		{"takes its address", "POST", services,
			`{"metadata":{"name":"good"},"spec":{"clusterIP":"10.96.100.100","ports":[{"port":80}]}}`, 201},

		{"a dry-run create", "POST", services + "?dryRun=All",
			`{"metadata":{"name":"dry"},"spec":{"clusterIP":"10.96.100.101","ports":[{"port":80}]}}`, 201},
		{"takes its address", "POST", services,
			`{"metadata":{"name":"wet"},"spec":{"clusterIP":"10.96.100.101","ports":[{"port":80}]}}`, 201},

		{"a NodePort service", "POST", services,
			`{"metadata":{"name":"np"},"spec":{"type":"NodePort","ports":[{"name":"a","port":80}]}}`, 201},
		{"an update of it refused by validation", "PATCH", services + "/np",
			`{"spec":{"ports":[{"name":"a","port":80},{"name":"b","port":70000,"nodePort":30123}]}}`, 422},
		{"takes its node port", "POST", services,
			`{"metadata":{"name":"np2"},"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":30123}]}}`, 201},
	}
	for _, step := range steps {
		var headers []string
		if step.method == "PATCH" {
			headers = []string{"Content-Type", "application/merge-patch+json"}
		}
		r := a.Do(t, step.method, step.path, []byte(step.body), headers...)
		if r.Code != step.code {
			t.Fatalf("%s: %d %s, want %d", step.name, r.Code, r.Body, step.code)
		}
	}
}
