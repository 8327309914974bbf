package e2e

import (
	"strings"
	"testing"

	"kplane/test/framework"
)

// TestBadInput: every kind of bad request gets a meta/v1 Status with the
// right reason, code and a readable message, and the server stays up.
func TestBadInput(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	deploy := func(selector, labels string) string {
		return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{` + selector +
			`"template":{"metadata":{"labels":` + labels + `},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`
	}
	cases := []struct {
		name, method, path, body, contentType string
		code                                  int
		reason, message                       string
	}{
		{"malformed JSON", "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":`, "application/json",
			400, "BadRequest", "ConfigMap in version"},
		{"malformed YAML", "POST", "/api/v1/namespaces/default/configmaps", "metadata:\n  name: x\n bad: [", "application/yaml",
			400, "BadRequest", "yaml"},
		{"unknown kind path", "POST", "/api/v1/namespaces/default/widgets", `{}`, "application/json",
			404, "NotFound", "the server could not find the requested resource"},
		{"kind mismatch", "POST", "/api/v1/namespaces/default/configmaps", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}`, "application/json",
			400, "BadRequest", "does not match the expected kind"},
		{"wrong apiVersion", "POST", "/apis/apps/v1/namespaces/default/deployments", `{"apiVersion":"apps/v1beta9","kind":"Deployment","metadata":{"name":"x"}}`, "application/json",
			400, "BadRequest", "the API version in the data (apps/v1beta9) does not match the expected API version (apps/v1)"},
		{"invalid name", "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"Bad_Name"}}`, "application/json",
			422, "Invalid", `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"`},
		{"missing selector", "POST", "/apis/apps/v1/namespaces/default/deployments", deploy(``, `{"a":"b"}`), "application/json",
			422, "Invalid", "spec.selector: Required value"},
		{"selector does not match template", "POST", "/apis/apps/v1/namespaces/default/deployments",
			deploy(`"selector":{"matchLabels":{"a":"b"}},`, `{"a":"c"}`), "application/json",
			422, "Invalid", "`selector` does not match template `labels`"},
		{"unknown field strict", "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", `{"metadata":{"name":"x"},"dataa":{}}`, "application/json",
			400, "BadRequest", `strict decoding error: unknown field "dataa"`},
		{"nonexistent path", "GET", "/apis/nope.example.com/v1/things", "", "",
			404, "NotFound", "the server could not find the requested resource"},
		{"missing object", "GET", "/api/v1/namespaces/default/pods/ghost", "", "",
			404, "NotFound", `pods "ghost" not found`},
		{"bad label selector", "GET", "/api/v1/pods?labelSelector=a%20in%20(", "", "",
			400, "BadRequest", "unable to parse requirement"},
		{"unsupported field selector", "GET", "/api/v1/pods?fieldSelector=spec.foo%3Dbar", "", "",
			400, "BadRequest", "field label not supported: spec.foo"},
		{"bad patch", "PATCH", "/api/v1/namespaces/default/services/kubernetes", `[{"op":"explode"}]`, "application/json-patch+json",
			400, "BadRequest", ""},
		{"oversized body", "POST", "/api/v1/namespaces/default/configmaps",
			`{"metadata":{"name":"big"},"data":{"x":"` + strings.Repeat("a", 3<<20) + `"}}`, "application/json",
			413, "RequestEntityTooLarge", "Request entity too large"},
		{"object over the etcd limit", "POST", "/api/v1/namespaces/default/pods", bigPod(), "application/json",
			413, "RequestEntityTooLarge", "Request entity too large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body []byte
			if tc.body != "" {
				body = []byte(tc.body)
			}
			headers := []string{}
			if tc.contentType != "" {
				headers = append(headers, "Content-Type", tc.contentType)
			}
			r := a.Do(t, tc.method, tc.path, body, headers...)
			status := decodeMap(t, r.Body)
			if r.Code != tc.code || status["kind"] != "Status" || status["reason"] != tc.reason || int(status["code"].(float64)) != tc.code {
				t.Fatalf("got %d %s, want %d %s", r.Code, r.Body, tc.code, tc.reason)
			}
			if msg, _ := status["message"].(string); !strings.Contains(msg, tc.message) || msg == "" {
				t.Errorf("message %q does not contain %q", msg, tc.message)
			}
		})
	}
	// Unknown fields without Strict are dropped with a warning.
	r := a.Do(t, "POST", "/api/v1/namespaces/default/configmaps", []byte(`{"metadata":{"name":"warned"},"dataa":{}}`))
	if r.Code != 201 || !strings.Contains(r.Header.Get("Warning"), `unknown field \"dataa\"`) {
		t.Errorf("warn mode: %d warning %q", r.Code, r.Header.Get("Warning"))
	}
	// No token, or a wrong one: 401 Unauthorized.
	for _, token := range []string{"", "not-a-token"} {
		r := a.DoWithToken(t, token, "GET", "/api/v1/namespaces", nil)
		if r.Code != 401 || decodeMap(t, r.Body)["reason"] != "Unauthorized" {
			t.Errorf("token %q: %d %s", token, r.Code, r.Body)
		}
	}
	// The server is still up.
	mustOK(t, a.Do(t, "GET", "/api/v1/namespaces/default", nil), 200)
	if r := a.DoWithToken(t, "", "GET", "/readyz", nil); r.Code != 200 {
		t.Errorf("readyz: %d", r.Code)
	}
}

// bigPod is a valid pod of about 2 MiB (a long argument list): under the
// 3 MiB body limit, over what etcd stores in one request.
func bigPod() string {
	args := make([]string, 1200)
	for i := range args {
		args[i] = `"` + strings.Repeat("a", 1700) + `"`
	}
	return `{"metadata":{"name":"big"},"spec":{"containers":[{"name":"c","image":"busybox","args":[` + strings.Join(args, ",") + `]}]}}`
}

// TestKubectlErrors: kubectl shows the server's errors as a user expects.
func TestKubectlErrors(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	r := a.Kubectl(t, "", "get", "po", "nope")
	if r.Err == nil || strings.TrimSpace(r.Stderr) != `Error from server (NotFound): pods "nope" not found` {
		t.Errorf("get missing pod: %v %q", r.Err, r.Stderr)
	}
	bad := writeFile(t, t.TempDir(), "bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndataa:\n  k: v\n")
	r = a.Kubectl(t, "", "apply", "-f", bad)
	if r.Err == nil || !strings.Contains(r.Stderr, `unknown field "dataa"`) {
		t.Errorf("apply with an unknown field: %v %q", r.Err, r.Stderr)
	}
	invalid := writeFile(t, t.TempDir(), "invalid.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_Valid\n")
	r = a.Kubectl(t, "", "apply", "-f", invalid)
	if r.Err == nil || !strings.Contains(r.Stderr, `The ConfigMap "Not_Valid" is invalid`) {
		t.Errorf("apply of an invalid name: %v %q", r.Err, r.Stderr)
	}
}
