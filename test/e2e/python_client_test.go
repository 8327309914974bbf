package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// TestPythonClient drives a cluster with the official Kubernetes Python
// client (Debian's python3-kubernetes), a client kplane's authors did not
// write: testdata/python_client.py lists, creates, patches with a
// strategic merge, reads and patches the scale subresource, pages with
// _continue, watches (the client sends ?watch=True), asks /version/, sees
// an invalid create fail with the Status as the ApiException's body,
// creates with dry_run, deletes a Deployment with orphan_dependents=True
// (?orphanDependents=True: its ReplicaSets stay), and deletes its
// namespace. Each line below is what a Kubernetes 1.32 cluster
// answers to the same script.
func TestPythonClient(t *testing.T) {
	t.Parallel()
	python := requirePythonClient(t)
	c := framework.StartCluster(t, func(o *cluster.Options) { o.Nodes = 0 })

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	script := filepath.Join(framework.RepoRoot(t), "test", "e2e", "testdata", "python_client.py")
	cmd := exec.CommandContext(ctx, python, script, c.KubeconfigPath(), "python-client")
	cmd.Env = append(os.Environ(), "HOME="+c.Home, "KUBECONFIG=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python3 python_client.py: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}

	want := strings.Join([]string{
		"version: 1.32 v1.32.0",
		"component statuses: scheduler=True controller-manager=True etcd-0=True",
		"list namespaces: default=True python-client=True",
		"create deployment: web replicas=1",
		"strategic-merge patch: app=nginx:1.26,sidecar=busybox:1.36",
		"read scale: Scale replicas=1",
		"patch scale: scale replicas=3 deployment replicas=3",
		"paginated list: pages=[2, 2, 1] names=page-0,page-1,page-2,page-3,page-4",
		"watch: ADDED watched k=1; MODIFIED watched k=2",
		"invalid create: http=422 kind=Status status=Failure reason=Invalid code=422 name=Not_A_Name field=metadata.name",
		"dry run: answered=dry stored=False",
		"orphan delete: deployment gone, replicasets left=2 with owners=0",
		"delete namespace: gone (404)",
	}, "\n") + "\n"
	if got := stdout.String(); got != want {
		t.Errorf("the Python client saw:\n%s\nwant:\n%s\nstderr:\n%s", got, want, stderr.String())
	}
}

// requirePythonClient returns a python3 that can import the kubernetes
// package, or skips the test saying how to install it; with
// KPLANE_REQUIRE_PYTHON_CLIENT=1 (as .ci/run sets) a missing client fails.
// Debian's python3-kubernetes installs into the system interpreter, which
// may not be the first python3 on PATH (pyenv), so both are tried;
// KPLANE_PYTHON names another.
func requirePythonClient(t *testing.T) string {
	t.Helper()
	candidates := []string{"python3", "/usr/bin/python3"}
	if p := os.Getenv("KPLANE_PYTHON"); p != "" {
		candidates = []string{p}
	}
	for _, candidate := range candidates {
		path, err := exec.LookPath(candidate)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import kubernetes").Run() == nil {
			return path
		}
	}
	if os.Getenv("KPLANE_REQUIRE_PYTHON_CLIENT") != "" {
		t.Fatalf("no python3 among %q can import the kubernetes package, and KPLANE_REQUIRE_PYTHON_CLIENT is set (apt-get install python3-kubernetes)", candidates)
	}
	t.Skip("SKIP: no python3 can import the kubernetes package; install it with apt-get install python3-kubernetes")
	return ""
}
