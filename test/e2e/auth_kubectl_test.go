package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"kplane/test/framework"
)

// TestKubectlAuthMinors runs the access-review verbs with every kubectl
// minor installed (1.27 … 1.33) against one in-process apiserver: the
// review resources are in `kubectl api-resources`, and `kubectl auth can-i`
// answers yes with exit code 0 and prints --list's table for the admin;
// `kubectl explain` finds the review kinds in OpenAPI.
// Each kubectl creates its SelfSubjectAccessReview in protobuf.
func TestKubectlAuthMinors(t *testing.T) {
	minors := framework.InstalledKubectlMinors(t)
	if len(minors) < 2 {
		t.Fatalf("found %d kubectl minors beside kubectl (%v), want at least two", len(minors), minors)
	}
	a := framework.StartAPIServer(t)
	for _, k := range minors {
		t.Run(fmt.Sprintf("1.%d", k.Minor), func(t *testing.T) {
			home := filepath.Join(a.Home, fmt.Sprintf("kubectl-1-%d", k.Minor))
			kubectl := func(args ...string) framework.KubectlResult {
				t.Helper()
				return framework.RunKubectl(t, k.Path, a.KubeconfigPath(), home, "", args...)
			}
			r := kubectl("api-resources", "--api-group=authorization.k8s.io", "-o", "wide")
			for _, want := range []string{"localsubjectaccessreviews", "selfsubjectaccessreviews", "selfsubjectrulesreviews", "subjectaccessreviews"} {
				if !strings.Contains(r.Stdout, want) {
					t.Errorf("kubectl 1.%d api-resources --api-group=authorization.k8s.io: %v\n%s%s\nwant %s", k.Minor, r.Err, r.Stdout, r.Stderr, want)
				}
			}
			if lines := strings.Split(strings.TrimSpace(r.Stdout), "\n"); len(lines) != 5 ||
				strings.Join(strings.Fields(lines[1]), " ") != "localsubjectaccessreviews authorization.k8s.io/v1 true LocalSubjectAccessReview create" {
				t.Errorf("kubectl 1.%d api-resources -o wide:\n%s\nwant four create-only resources, localsubjectaccessreviews namespaced", k.Minor, r.Stdout)
			}
			r = kubectl("api-resources", "--api-group=authentication.k8s.io")
			if !strings.Contains(r.Stdout, "selfsubjectreviews") || !strings.Contains(r.Stdout, "tokenreviews") {
				t.Errorf("kubectl 1.%d api-resources --api-group=authentication.k8s.io:\n%s%s", k.Minor, r.Stdout, r.Stderr)
			}

			// explain reads the kind from OpenAPI v3 (1.27 and 1.28 read the
			// v2 protobuf only with --output=plaintext-openapiv2).
			r = kubectl("explain", "selfsubjectaccessreviews.spec.resourceAttributes")
			if r.Err != nil || !strings.Contains(r.Stdout, "KIND:") || !strings.Contains(r.Stdout, "SelfSubjectAccessReview") || !strings.Contains(r.Stdout, "verb") {
				t.Errorf("kubectl 1.%d explain selfsubjectaccessreviews.spec.resourceAttributes: %v\n%s%s", k.Minor, r.Err, r.Stdout, r.Stderr)
			}

			r = kubectl("auth", "can-i", "create", "pods")
			if r.Err != nil || r.Stdout != "yes\n" {
				t.Errorf("kubectl 1.%d auth can-i create pods: %v %q %q, want yes and exit 0", k.Minor, r.Err, r.Stdout, r.Stderr)
			}
			r = kubectl("auth", "can-i", "delete", "deployments.apps", "-n", "kube-system")
			if r.Err != nil || r.Stdout != "yes\n" {
				t.Errorf("kubectl 1.%d auth can-i delete deployments.apps: %v %q %q, want yes", k.Minor, r.Err, r.Stdout, r.Stderr)
			}
			r = kubectl("auth", "can-i", "--list")
			if lines := strings.Split(r.Stdout, "\n"); r.Err != nil || len(lines) < 3 ||
				strings.Join(strings.Fields(lines[0]), " ") != "Resources Non-Resource URLs Resource Names Verbs" ||
				strings.Join(strings.Fields(lines[1]), " ") != "*.* [] [] [*]" {
				t.Errorf("kubectl 1.%d auth can-i --list: %v\n%s%s\nwant the table with *.* first", k.Minor, r.Err, r.Stdout, r.Stderr)
			}
		})
	}
}
