package rbac

import (
	"context"
	"strings"
	"testing"

	"kplane/pkg/api"
)

func TestCovers(t *testing.T) {
	tests := []struct {
		name    string
		owner   []api.PolicyRule
		servant []api.PolicyRule
		want    bool
	}{
		{"same rule", []api.PolicyRule{rule(list("get", "list"), list(""), list("pods"))}, []api.PolicyRule{rule(list("get"), list(""), list("pods"))}, true},
		{"missing verb", []api.PolicyRule{rule(list("get"), list(""), list("pods"))}, []api.PolicyRule{rule(list("get", "delete"), list(""), list("pods"))}, false},
		{"stars", []api.PolicyRule{rule(list("*"), list("*"), list("*"))}, []api.PolicyRule{rule(list("get"), list("apps"), list("deployments/scale"))}, true},
		{"*/scale covers a scale subresource", []api.PolicyRule{rule(list("get"), list("apps"), list("*/scale"))}, []api.PolicyRule{rule(list("get"), list("apps"), list("deployments/scale"))}, true},
		{"*/scale does not cover the resource", []api.PolicyRule{rule(list("get"), list("apps"), list("*/scale"))}, []api.PolicyRule{rule(list("get"), list("apps"), list("deployments"))}, false},
		{"named owner does not cover all names",
			[]api.PolicyRule{{Verbs: list("get"), APIGroups: list(""), Resources: list("configmaps"), ResourceNames: list("a")}},
			[]api.PolicyRule{rule(list("get"), list(""), list("configmaps"))}, false},
		{"named owner covers its name",
			[]api.PolicyRule{{Verbs: list("get"), APIGroups: list(""), Resources: list("configmaps"), ResourceNames: list("a", "b")}},
			[]api.PolicyRule{{Verbs: list("get"), APIGroups: list(""), Resources: list("configmaps"), ResourceNames: list("b")}}, true},
		{"URL prefix", []api.PolicyRule{{Verbs: list("get"), NonResourceURLs: list("/api/*")}}, []api.PolicyRule{{Verbs: list("get"), NonResourceURLs: list("/api/v1")}}, true},
		{"URL not covered", []api.PolicyRule{{Verbs: list("get"), NonResourceURLs: list("/api")}}, []api.PolicyRule{{Verbs: list("get"), NonResourceURLs: list("/apis")}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, missing := Covers(tt.owner, tt.servant); got != tt.want {
				t.Fatalf("Covers = %v (missing %+v), want %v", got, missing, tt.want)
			}
		})
	}
}

func TestConfirmNoEscalation(t *testing.T) {
	src := testPolicy()
	ctx := context.Background()
	// alice reads pods everywhere and secrets in team-a.
	if err := ConfirmNoEscalation(ctx, src, alice, "team-a", []api.PolicyRule{
		rule(list("get"), list(""), list("pods", "secrets")),
	}); err != nil {
		t.Fatalf("rules alice holds: %v", err)
	}
	err := ConfirmNoEscalation(ctx, src, alice, "team-b", []api.PolicyRule{
		rule(list("get", "list"), list(""), list("pods", "secrets")),
		rule(list("delete"), list(""), list("secrets")),
	})
	want := `user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "delete"]}`
	if err == nil || err.Error() != want {
		t.Fatalf("err =\n%v\nwant\n%s", err, want)
	}

	// bob's own rules could not all be resolved: the message says so.
	err = ConfirmNoEscalation(ctx, src, bob, "", []api.PolicyRule{rule(list("get"), list(""), list("pods"))})
	if err == nil || !strings.HasSuffix(err.Error(), `; resolution errors: [clusterrole.rbac.authorization.k8s.io "no-such-role" not found]`) {
		t.Fatalf("err = %v, want the resolution error appended", err)
	}
}

func TestCompactString(t *testing.T) {
	got := CompactString(api.PolicyRule{Verbs: list("get"), NonResourceURLs: list("/healthz")})
	if want := `{NonResourceURLs:["/healthz"], Verbs:["get"]}`; got != want {
		t.Fatalf("CompactString = %s, want %s", got, want)
	}
}
