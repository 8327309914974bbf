package framework

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// RequireHelm returns the path of the helm binary the tests drive: the
// file KPLANE_HELM names (.ci/run builds Helm into a cache and sets it), or
// helm on PATH. Without one it skips the test with a clear message; with
// KPLANE_REQUIRE_HELM=1 (as CI sets) a missing helm fails the test.
func RequireHelm(t testing.TB) string {
	t.Helper()
	if path := os.Getenv("KPLANE_HELM"); path != "" {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("KPLANE_HELM=%s: %v", path, err)
		}
		return path
	}
	path, err := exec.LookPath("helm")
	if err != nil {
		if os.Getenv("KPLANE_REQUIRE_HELM") != "" {
			t.Fatalf("helm is not on PATH and KPLANE_HELM is unset, and KPLANE_REQUIRE_HELM is set (.ci/build-helm.sh builds it)")
		}
		t.Skip("SKIP: helm is not on PATH and KPLANE_HELM is unset; run .ci/build-helm.sh and set KPLANE_HELM to run this test")
	}
	return path
}

// Helm runs helm in dir against the cluster, with a private HOME and Helm
// state directories under the cluster's data dir, so that nothing is read
// from or written to the user's own Helm setup.
func (c *LocalCluster) Helm(t testing.TB, dir string, args ...string) KubectlResult {
	t.Helper()
	helm := RequireHelm(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, helm, append([]string{"--kubeconfig", c.KubeconfigPath()}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+c.Home, "KUBECONFIG=",
		"HELM_CACHE_HOME="+filepath.Join(c.Home, "helm-cache"),
		"HELM_CONFIG_HOME="+filepath.Join(c.Home, "helm-config"),
		"HELM_DATA_HOME="+filepath.Join(c.Home, "helm-data"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return KubectlResult{Stdout: stdout.String(), Stderr: stderr.String(), Err: err}
}

// MustHelm runs helm and fails the test if it exits non-zero.
func (c *LocalCluster) MustHelm(t testing.TB, dir string, args ...string) string {
	t.Helper()
	r := c.Helm(t, dir, args...)
	if r.Err != nil {
		t.Fatalf("helm %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Err, r.Stdout, r.Stderr)
	}
	return r.Stdout
}
