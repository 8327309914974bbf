package e2e

import (
	"strings"
	"testing"

	"kplane/test/framework"
)

// TestCRDServerSideApplyWithKubectl: kubectl apply --server-side on a
// custom resource creates it, applies a changed field the second time,
// refuses a second field manager that changes the same field with
// upstream's conflict message, and gives the field to that manager with
// --force-conflicts; a kubectl scale owns the replicas it set, through
// /scale; --subresource=status applies status only.
func TestCRDServerSideApplyWithKubectl(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	kubectl := func(stdin string, args ...string) string {
		t.Helper()
		r := a.Kubectl(t, stdin, args...)
		if r.Err != nil {
			t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
		}
		return r.Stdout
	}
	kubectl(crontabCRDYAML, "apply", "-f", "-")
	kubectl("", "wait", "--for=condition=Established", "--timeout=20s", "crd/crontabs.stable.example.com")

	if out := kubectl(crontabYAML("ssa", "0 * * * *", 1), "apply", "--server-side", "-f", "-"); out != "crontab.stable.example.com/ssa serverside-applied\n" {
		t.Errorf("first apply: %q", out)
	}
	if out := kubectl(crontabYAML("ssa", "0 * * * *", 2), "apply", "--server-side", "-f", "-"); out != "crontab.stable.example.com/ssa serverside-applied\n" {
		t.Errorf("second apply: %q", out)
	}
	if out := kubectl("", "get", "crontab/ssa", "-o", "jsonpath={.spec.replicas} {.metadata.managedFields[*].manager} {.metadata.managedFields[*].operation}"); out != "2 kubectl Apply" {
		t.Errorf("after two applies: %q, want replicas 2 owned by kubectl's Apply", out)
	}

	r := a.Kubectl(t, crontabYAML("ssa", "0 * * * *", 5), "apply", "--server-side", "--field-manager=ops", "-f", "-")
	if r.Err == nil || !strings.Contains(r.Stderr, `Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas`) {
		t.Errorf("apply by a second manager: err %v\n%s%s", r.Err, r.Stdout, r.Stderr)
	}
	if out := kubectl("", "get", "crontab/ssa", "-o", "jsonpath={.spec.replicas}"); out != "2" {
		t.Errorf("the refused apply changed replicas to %s", out)
	}
	kubectl(crontabYAML("ssa", "0 * * * *", 5), "apply", "--server-side", "--field-manager=ops", "--force-conflicts", "-f", "-")
	if out := kubectl("", "get", "crontab/ssa", "-o", "jsonpath={.spec.replicas} {.metadata.managedFields[*].manager}"); out != "5 kubectl ops" {
		t.Errorf("after --force-conflicts: %q, want replicas 5 and both managers", out)
	}

	// kubectl scale writes replicas through /scale as the manager "kubectl"
	// (its user agent); ops applying its old value again now conflicts.
	kubectl("", "scale", "crontab/ssa", "--replicas=7")
	r = a.Kubectl(t, crontabYAML("ssa", "0 * * * *", 5), "apply", "--server-side", "--field-manager=ops", "-f", "-")
	if r.Err == nil || !strings.Contains(r.Stderr, `Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using stable.example.com/v1 at `) ||
		!strings.Contains(r.Stderr, ": .spec.replicas") {
		t.Errorf("apply after kubectl scale: err %v\n%s%s", r.Err, r.Stdout, r.Stderr)
	}
	kubectl(crontabYAML("ssa", "0 * * * *", 5), "apply", "--server-side", "--field-manager=ops", "--force-conflicts", "-f", "-")

	status := "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ssa\nstatus:\n  replicas: 5\n"
	kubectl(status, "apply", "--server-side", "--subresource=status", "--field-manager=counter", "-f", "-")
	if out := kubectl("", "get", "crontab/ssa", "-o", "jsonpath={.spec.replicas}/{.status.replicas}"); out != "5/5" {
		t.Errorf("after the status apply: %q, want 5/5", out)
	}
}
