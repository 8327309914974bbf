package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// TestCtlJoinAddsANodeThatRunsAPod: on a `ctl up` cluster with only its
// tainted control-plane node, `ctl token create --print-join-command`
// prints a join command; running it (ctl join, which execs the kubelet)
// brings up a node that registers as system:node:joined-1, goes Ready,
// and runs a pod. Real kubectl shows the CSR Approved,Issued, requested
// by the bootstrap token's user; a join with a wrong pin is refused.
func TestCtlJoinAddsANodeThatRunsAPod(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	c := framework.StartCluster(t, func(o *cluster.Options) { o.Nodes = 0 })
	bin := framework.BuildBinaries(t)
	ctl := filepath.Join(bin, "ctl")
	out, err := exec.Command(ctl, "--kubeconfig", c.KubeconfigPath(), "token", "create", "--ttl", "10m", "--print-join-command").CombinedOutput()
	if err != nil {
		t.Fatalf("ctl token create: %v\n%s", err, out)
	}
	joinArgs := strings.Fields(strings.TrimSpace(string(out)))
	if len(joinArgs) < 7 || joinArgs[0] != "ctl" || joinArgs[1] != "join" || !strings.HasPrefix(joinArgs[6], "sha256:") {
		t.Fatalf("join command = %q", out)
	}

	// A wrong pin is refused before anything is written.
	badDir := t.TempDir()
	bad := append(append([]string{}, joinArgs[1:5]...), "--discovery-token-ca-cert-hash", "sha256:"+strings.Repeat("0", 64),
		"--node-name", "evil", "--data-dir", badDir, "--print-only")
	if out, err := exec.Command(ctl, bad...).CombinedOutput(); err == nil || !strings.Contains(string(out), "matches none") {
		t.Errorf("join with a wrong pin: err %v, output:\n%s", err, out)
	}

	dataDir := t.TempDir()
	args := append(append([]string{}, joinArgs[1:]...), "--node-name", "joined-1", "--data-dir", dataDir,
		"--", "--runtime", "simulated", "--pod-cidr", "10.244.200.0/24")
	cmd := exec.Command(ctl, args...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// ctl join execs the kubelet, which keeps this pid.
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("ctl join / kubelet output:\n%s", logs.String())
		}
	})

	cl := c.Client(t)
	ctx := context.Background()
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		node, err := cl.Nodes().Get(ctx, "joined-1", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, cond := range node.Status.Conditions {
			if cond.Type == api.NodeReady && cond.Status == api.ConditionTrue {
				return true, ""
			}
		}
		return false, fmt.Sprintf("conditions %+v", node.Status.Conditions)
	})
	if _, err := os.Stat(filepath.Join(dataDir, "kubelet.kubeconfig")); err != nil {
		t.Errorf("kubelet kubeconfig: %v", err)
	}

	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "on-joined", Namespace: "default"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27.0"}}}}
	if _, err := cl.Pods("default").Create(ctx, pod, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		p, err := cl.Pods("default").Get(ctx, "on-joined", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return p.Spec.NodeName == "joined-1" && p.Status.Phase == api.PodRunning, fmt.Sprintf("node %q phase %s", p.Spec.NodeName, p.Status.Phase)
	})

	tokenID := strings.SplitN(joinArgs[4], ".", 2)[0]
	csrs := c.MustKubectl(t, "get", "csr")
	if !strings.Contains(csrs, "kubernetes.io/kube-apiserver-client-kubelet") || !strings.Contains(csrs, "system:bootstrap:"+tokenID) ||
		!strings.Contains(csrs, "Approved,Issued") {
		t.Errorf("kubectl get csr:\n%s", csrs)
	}
}
