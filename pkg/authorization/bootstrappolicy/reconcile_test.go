package bootstrappolicy

import (
	"testing"

	"kplane/pkg/api"
)

func TestCovers(t *testing.T) {
	pods := rule("get", "list").groups("").resources("pods").build()
	for _, tc := range []struct {
		name  string
		rules []api.PolicyRule
		rule  api.PolicyRule
		want  bool
	}{
		{"same rule", []api.PolicyRule{pods}, pods, true},
		{"split over two rules", []api.PolicyRule{rule("get").groups("").resources("pods").build(), rule("list").groups("").resources("pods").build()}, pods, true},
		{"a verb missing", []api.PolicyRule{rule("get").groups("").resources("pods").build()}, pods, false},
		{"stars", []api.PolicyRule{rule("*").groups("*").resources("*").build()}, pods, true},
		{"*/scale covers deployments/scale", []api.PolicyRule{rule("get").groups("apps").resources("*/scale").build()},
			rule("get").groups("apps").resources("deployments/scale").build(), true},
		{"named rule does not cover all names", []api.PolicyRule{rule("get").groups("").resources("pods").names("a").build()}, pods, false},
		{"names covered by unnamed", []api.PolicyRule{pods}, rule("get").groups("").resources("pods").names("a").build(), true},
		{"url prefix", []api.PolicyRule{rule("get").urls("/healthz/*").build()}, rule("get").urls("/healthz/etcd").build(), true},
		{"url missing", []api.PolicyRule{rule("get").urls("/version").build()}, rule("get").urls("/metrics").build(), false},
	} {
		if got := Covers(tc.rules, tc.rule); got != tc.want {
			t.Errorf("%s: Covers = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Reconciling adds what was lost, keeps what was added, and reports no
// change when nothing is missing.
func TestReconcileClusterRole(t *testing.T) {
	expected := clusterRole("r", nil, rule("get").groups("").resources("pods").build(), rule("list").groups("").resources("nodes").build())
	extra := rule("get").groups("example.com").resources("widgets").build()
	existing := expected
	existing.Rules = []api.PolicyRule{expected.Rules[1], extra}
	existing.ObjectMeta.Labels = map[string]string{"team": "a"}
	existing.ObjectMeta.Annotations = nil

	got, changed := ReconcileClusterRole(existing, expected)
	if !changed {
		t.Fatal("changed = false, want true")
	}
	if !Covers(got.Rules, expected.Rules[0]) || !Covers(got.Rules, extra) || len(got.Rules) != 3 {
		t.Errorf("rules = %+v, want the lost pods rule back beside the two kept", got.Rules)
	}
	if got.Labels["team"] != "a" || got.Labels[BootstrappingLabel] != BootstrappingValue || got.Annotations[AutoUpdateAnnotation] != "true" {
		t.Errorf("metadata = %v %v", got.Labels, got.Annotations)
	}
	if existing.Labels[BootstrappingLabel] != "" {
		t.Error("reconciling changed the existing object's labels in place")
	}
	if _, again := ReconcileClusterRole(got, expected); again {
		t.Error("second reconcile reports a change")
	}
}

// A binding gets its lost subjects back; one whose roleRef changed must
// be recreated.
func TestReconcileBinding(t *testing.T) {
	expected := clusterRoleBinding("b", groupSubject("g"), userSubject("u"))
	existing := expected
	existing.Subjects = []api.Subject{userSubject("other"), userSubject("u")}
	got, changed, recreate := ReconcileClusterRoleBinding(existing, expected)
	if !changed || recreate || len(got.Subjects) != 3 {
		t.Errorf("changed=%v recreate=%v subjects=%+v", changed, recreate, got.Subjects)
	}
	moved := expected
	moved.RoleRef.Name = "elsewhere"
	if _, _, recreate := ReconcileClusterRoleBinding(moved, expected); !recreate {
		t.Error("a changed roleRef must recreate")
	}
	if _, changed, _ := ReconcileClusterRoleBinding(got, expected); changed {
		t.Error("second reconcile reports a change")
	}
}

func TestProtected(t *testing.T) {
	if Protected(api.ObjectMeta{Annotations: map[string]string{AutoUpdateAnnotation: "true"}}) ||
		!Protected(api.ObjectMeta{Annotations: map[string]string{AutoUpdateAnnotation: "false"}}) ||
		Protected(api.ObjectMeta{}) {
		t.Error("only autoupdate=false protects an object")
	}
}
