package apiserver_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"kplane/test/framework"
)

// TestKubectlGetPriorityClasses: the oldest and newest installed kubectl
// list the two system classes under the short name pc with upstream's
// columns, are refused their deletion with upstream's message, and create
// (and delete) a class of their own with `kubectl create priorityclass`.
func TestKubectlGetPriorityClasses(t *testing.T) {
	a := framework.StartAPIServer(t)
	for _, k := range framework.OldestAndNewestKubectl(t) {
		t.Run(fmt.Sprintf("1.%d", k.Minor), func(t *testing.T) {
			kubectl := func(args ...string) framework.KubectlResult {
				return framework.RunKubectl(t, k.Path, a.KubeconfigPath(), t.TempDir(), "", args...)
			}
			r := kubectl("get", "pc")
			if r.Err != nil {
				t.Fatalf("get pc: %v\n%s", r.Err, r.Stderr)
			}
			lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
			want := []string{
				`^NAME +VALUE +GLOBAL-DEFAULT +AGE +PREEMPTIONPOLICY$`,
				`^system-cluster-critical +2000000000 +false +\d+s +PreemptLowerPriority$`,
				`^system-node-critical +2000001000 +false +\d+s +PreemptLowerPriority$`,
			}
			if len(lines) != len(want) {
				t.Fatalf("get pc printed %d lines, want %d:\n%s", len(lines), len(want), r.Stdout)
			}
			for i, pattern := range want {
				if !regexp.MustCompile(pattern).MatchString(lines[i]) {
					t.Errorf("line %d = %q, want %s\n%s", i, lines[i], pattern, r.Stdout)
				}
			}

			r = kubectl("delete", "priorityclass", "system-node-critical")
			refusal := `Error from server (Forbidden): priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted`
			if r.Err == nil || strings.TrimSpace(r.Stderr) != refusal {
				t.Errorf("delete system-node-critical: %v\nstderr %q\nwant   %q", r.Err, r.Stderr, refusal)
			}

			name := fmt.Sprintf("batch-%d", k.Minor)
			r = kubectl("create", "priorityclass", name, "--value=100", "--preemption-policy=Never", "--description=Batch jobs.")
			if r.Err != nil {
				t.Fatalf("create priorityclass: %v\n%s", r.Err, r.Stderr)
			}
			r = kubectl("get", "pc", name, "--no-headers")
			if r.Err != nil || !regexp.MustCompile(`^`+name+` +100 +false +\d+s +Never\n$`).MatchString(r.Stdout) {
				t.Errorf("get pc %s: %v %q %s", name, r.Err, r.Stdout, r.Stderr)
			}
			// A user's class goes as it came, leaving the next kubectl the
			// system classes only.
			if r = kubectl("delete", "pc", name); r.Err != nil {
				t.Errorf("delete pc %s: %v\n%s", name, r.Err, r.Stderr)
			}
		})
	}
}
