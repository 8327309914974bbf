package audit

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// testPolicy is a policy in the shape distributions ship: quiet health
// checks and leases, secrets at Metadata only, configmaps in full, the
// rest at Metadata.
const testPolicy = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: None
  users: ["system:kube-scheduler"]
  verbs: ["get", "update"]
  namespaces: ["kube-system"]
  resources:
  - group: coordination.k8s.io
    resources: ["leases"]
- level: Metadata
  resources:
  - group: ""
    resources: ["secrets"]
- level: RequestResponse
  userGroups: ["auditors"]
  resources:
  - group: ""
    resources: ["configmaps"]
    resourceNames: ["watched"]
- level: Request
  resources:
  - group: ""
    resources: ["configmaps", "pods/log"]
  - group: apps
    resources: ["*/scale"]
  - group: batch
    resources: ["jobs/*"]
  omitStages: ["ResponseStarted"]
- level: Metadata
  omitManagedFields: true
`

func resourceAttrs(user auth.User, verb, group, ns, resource, subresource, name string) authorizer.Attributes {
	return authorizer.Attributes{User: user, Verb: verb, ResourceRequest: true, APIGroup: group, APIVersion: "v1",
		Namespace: ns, Resource: resource, Subresource: subresource, Name: name}
}

func TestPolicyEvaluate(t *testing.T) {
	policy, err := ParsePolicy([]byte(testPolicy), nil)
	if err != nil {
		t.Fatal(err)
	}
	alice := auth.User{Name: "alice", Groups: []string{"system:authenticated"}}
	auditor := auth.User{Name: "bob", Groups: []string{"auditors"}}
	scheduler := auth.User{Name: "system:kube-scheduler"}
	for _, tc := range []struct {
		name  string
		attrs authorizer.Attributes
		want  Level
	}{
		{"health check", authorizer.Attributes{User: alice, Verb: "get", Path: "/healthz"}, LevelNone},
		{"health check subpath", authorizer.Attributes{User: alice, Verb: "get", Path: "/healthz/etcd"}, LevelNone},
		{"version exactly", authorizer.Attributes{User: alice, Verb: "get", Path: "/version"}, LevelNone},
		{"other non-resource path", authorizer.Attributes{User: alice, Verb: "get", Path: "/metrics"}, LevelMetadata},
		{"scheduler lease renewal", resourceAttrs(scheduler, "update", "coordination.k8s.io", "kube-system", "leases", "", "kube-scheduler"), LevelNone},
		{"scheduler lease create is kept", resourceAttrs(scheduler, "create", "coordination.k8s.io", "kube-system", "leases", "", ""), LevelMetadata},
		{"someone else's lease", resourceAttrs(alice, "update", "coordination.k8s.io", "kube-system", "leases", "", "x"), LevelMetadata},
		{"scheduler lease elsewhere", resourceAttrs(scheduler, "update", "coordination.k8s.io", "default", "leases", "", "x"), LevelMetadata},
		{"secret", resourceAttrs(alice, "create", "", "default", "secrets", "", ""), LevelMetadata},
		{"configmap", resourceAttrs(alice, "update", "", "default", "configmaps", "", "c"), LevelRequest},
		{"auditor's named configmap", resourceAttrs(auditor, "get", "", "default", "configmaps", "", "watched"), LevelRequestResponse},
		{"auditor's other configmap", resourceAttrs(auditor, "get", "", "default", "configmaps", "", "other"), LevelRequest},
		{"pods/log subresource", resourceAttrs(alice, "get", "", "default", "pods", "log", "p"), LevelRequest},
		{"pods themselves are not pods/log", resourceAttrs(alice, "get", "", "default", "pods", "", "p"), LevelMetadata},
		{"*/scale", resourceAttrs(alice, "update", "apps", "default", "deployments", "scale", "web"), LevelRequest},
		{"*/scale is per group", resourceAttrs(alice, "update", "", "default", "replicationcontrollers", "scale", "web"), LevelMetadata},
		{"jobs/* matches jobs", resourceAttrs(alice, "create", "batch", "default", "jobs", "", ""), LevelRequest},
		{"jobs/* matches its subresources", resourceAttrs(alice, "update", "batch", "default", "jobs", "status", "j"), LevelRequest},
		{"configmap in another group", resourceAttrs(alice, "get", "example.com", "default", "configmaps", "", "c"), LevelMetadata},
		{"failed authentication has no user", authorizer.Attributes{Verb: "list", ResourceRequest: true, Resource: "configmaps"}, LevelRequest},
	} {
		got := policy.Evaluate(tc.attrs)
		if got.Level != tc.want {
			t.Errorf("%s: level %s, want %s", tc.name, got.Level, tc.want)
		}
	}

	configmap := policy.Evaluate(resourceAttrs(alice, "update", "", "default", "configmaps", "", "c"))
	if !configmap.Omits(StageRequestReceived) || !configmap.Omits(StageResponseStarted) || configmap.Omits(StageResponseComplete) {
		t.Errorf("configmap rule omits %v, want the policy's RequestReceived and the rule's ResponseStarted", configmap.OmitStages)
	}
	if policy.Evaluate(resourceAttrs(alice, "get", "", "default", "nodes", "", "n")).OmitManagedFields != true {
		t.Errorf("the last rule's omitManagedFields was not applied")
	}
}

func TestPolicyWithoutRulesRecordsNothing(t *testing.T) {
	policy, err := ParsePolicy([]byte("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: []\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := policy.Evaluate(resourceAttrs(auth.User{Name: "alice"}, "create", "", "default", "pods", "", "")); got.Level != LevelNone {
		t.Errorf("level %s, want None", got.Level)
	}
}

func TestParsePolicyRejectsMistakes(t *testing.T) {
	for name, doc := range map[string]string{
		"wrong kind":         "apiVersion: audit.k8s.io/v1\nkind: Pod\nrules: []\n",
		"wrong version":      "apiVersion: audit.k8s.io/v2\nkind: Policy\nrules: []\n",
		"unknown level":      "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Everything}]\n",
		"not a policy":       "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: {level: None}\n",
		"unknown stage":      "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Done]\nrules: []\n",
		"resources and urls": "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, nonResourceURLs: ['/x'], namespaces: [a]}]\n",
	} {
		if _, err := ParsePolicy([]byte(doc), nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestParsePolicyFallsBackToLenientDecoding: metadata is part of a Policy;
// a field kplane does not know is dropped with a warning rather than
// refusing the policy, as upstream does.
func TestParsePolicyFallsBackToLenientDecoding(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	policy, err := ParsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nmetadata: {name: default}\nrules: [{level: Metadata}]\n"), log)
	if err != nil || policy.Metadata.Name != "default" || logged.Len() != 0 {
		t.Fatalf("policy with metadata: %+v, %v, logged %q; want it read without a warning", policy, err, logged.String())
	}
	policy, err = ParsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, resource: [{group: ''}]}, {level: Metadata}]\n"), log)
	if err != nil || len(policy.Rules) != 2 || policy.Rules[0].Level != LevelNone {
		t.Fatalf("policy with an unknown field: %+v, %v; want it read leniently", policy, err)
	}
	if !strings.Contains(logged.String(), "falling back to lenient decoding") || !strings.Contains(logged.String(), "resource") {
		t.Errorf("warning %q, want the lenient fallback naming the unknown field", logged.String())
	}
}

// TestLoadPolicyRefusesNoRules: a policy file without rules is an error,
// in upstream's words.
func TestLoadPolicyRefusesNoRules(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPolicy(path, nil); err == nil || err.Error() != "loaded illegal policy with 0 rules from file "+path {
		t.Errorf("LoadPolicy without rules: %v", err)
	}
}
