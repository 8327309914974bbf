package cluster

import (
	"os"
	"testing"

	"kplane/pkg/audit"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// TestDefaultAuditPolicy: the policy ctl up writes parses, records a
// user's writes at Metadata and leaves the cluster's own noise out.
func TestDefaultAuditPolicy(t *testing.T) {
	policy, err := audit.ParsePolicy([]byte(defaultAuditPolicy), nil)
	if err != nil {
		t.Fatalf("default policy: %v", err)
	}
	node := auth.User{Name: "system:node:n1", Groups: []string{"system:nodes"}}
	admin := auth.AdminUser()
	for _, tc := range []struct {
		name  string
		attrs authorizer.Attributes
		want  audit.Level
	}{
		{"readyz", authorizer.Attributes{User: admin, Verb: "get", Path: "/readyz"}, audit.LevelNone},
		{"node heartbeat", authorizer.Attributes{User: node, Verb: "update", ResourceRequest: true, APIGroup: "coordination.k8s.io",
			Namespace: "kube-node-lease", Resource: "leases", Name: "n1"}, audit.LevelNone},
		{"event", authorizer.Attributes{User: node, Verb: "create", ResourceRequest: true, Namespace: "default", Resource: "events"}, audit.LevelNone},
		{"secret create", authorizer.Attributes{User: admin, Verb: "create", ResourceRequest: true, Namespace: "default", Resource: "secrets"}, audit.LevelMetadata},
		{"lease delete", authorizer.Attributes{User: admin, Verb: "delete", ResourceRequest: true, APIGroup: "coordination.k8s.io",
			Namespace: "kube-system", Resource: "leases", Name: "x"}, audit.LevelMetadata},
	} {
		if got := policy.Evaluate(tc.attrs).Level; got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestEnsureAuditPolicyKeepsAnEditedPolicy: the file is written once.
func TestEnsureAuditPolicyKeepsAnEditedPolicy(t *testing.T) {
	l := layout{t.TempDir()}
	if err := ensureAuditPolicy(l); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(l.auditPolicy()); string(data) != defaultAuditPolicy {
		t.Fatalf("first start wrote %q", data)
	}
	edited := "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: RequestResponse}]\n"
	if err := os.WriteFile(l.auditPolicy(), []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ensureAuditPolicy(l); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(l.auditPolicy()); string(data) != edited {
		t.Errorf("second start replaced the edited policy with %q", data)
	}
}
