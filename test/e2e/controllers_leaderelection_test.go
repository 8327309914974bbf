package e2e

import (
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
	"kplane/pkg/leaderelection"
	"kplane/test/framework"
)

// Election timings for the two controller-managers this test runs itself:
// short, so the takeover takes seconds; upstream's ratios (lease > renew
// deadline > retry period).
const (
	managerLeaseDuration = 6 * time.Second
	managerRenewDeadline = 4 * time.Second
	managerRetryPeriod   = 500 * time.Millisecond
	// managerFreeze is how long the leader is stopped (SIGSTOP) to show that
	// the standby does nothing while the lease is valid: well below the
	// renew deadline, so the leader keeps its lease when it resumes.
	managerFreeze = 1500 * time.Millisecond
)

// managerProcess is one bin/controller-manager the test started.
type managerProcess struct {
	label  string
	cmd    *exec.Cmd
	out    *framework.SyncBuffer
	exited chan struct{}
}

// startManager runs bin/controller-manager with leader election against
// the cluster, with the admin kubeconfig (the cluster was started without a
// controller-manager, so it wrote no kubeconfig for one).
func startManager(t *testing.T, bin, kubeconfig, label string) *managerProcess {
	t.Helper()
	m := &managerProcess{label: label, out: &framework.SyncBuffer{}, exited: make(chan struct{})}
	m.cmd = exec.Command(filepath.Join(bin, "controller-manager"),
		"--kubeconfig", kubeconfig,
		"--leader-elect",
		"--bind-address", "127.0.0.1:0",
		"--leader-elect-lease-duration", managerLeaseDuration.String(),
		"--leader-elect-renew-deadline", managerRenewDeadline.String(),
		"--leader-elect-retry-period", managerRetryPeriod.String())
	m.cmd.Stdout, m.cmd.Stderr = m.out, m.out
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("start controller-manager %s: %v", label, err)
	}
	go func() {
		_ = m.cmd.Wait()
		close(m.exited)
	}()
	t.Cleanup(func() {
		// Only this process, by its PID; SIGCONT first in case it is frozen.
		_ = m.cmd.Process.Signal(syscall.SIGCONT)
		_ = m.cmd.Process.Kill()
		<-m.exited
		if t.Failed() {
			t.Logf("controller-manager %s (pid %d) output:\n%s", label, m.cmd.Process.Pid, m.out.String())
		}
	})
	return m
}

func (m *managerProcess) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := m.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to controller-manager %s: %v", sig, m.label, err)
	}
}

// binariesWithoutControllerManager links every built binary except the
// controller-manager into a new directory: `ctl up` plans a
// controller-manager only when its binary exists, so a cluster started from
// there leaves the managers to the test.
func binariesWithoutControllerManager(t *testing.T, bin string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "controller-manager" {
			continue
		}
		if err := os.Symlink(filepath.Join(bin, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// leaseHolder reads kube-system/kube-controller-manager's holderIdentity
// ("" when the Lease does not exist yet).
func leaseHolder(t *testing.T, cl *client.Client) (string, error) {
	t.Helper()
	l, err := cl.Leases("kube-system").Get(context.Background(), "kube-controller-manager", client.GetOptions{})
	if err != nil {
		return "", err
	}
	if l.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *l.Spec.HolderIdentity, nil
}

// deploymentState is the RS replicas and active pods of deployment ha.
func deploymentState(t *testing.T, cl *client.Client) (rsReplicas []int32, active int, summary string) {
	t.Helper()
	list, err := cl.ReplicaSets("default").List(context.Background(), client.ListOptions{LabelSelector: "app=ha"})
	if err != nil {
		t.Fatalf("list replicasets: %v", err)
	}
	for _, rs := range list.Items {
		rsReplicas = append(rsReplicas, derefInt32(rs.Spec.Replicas))
	}
	pods := listPods(t, cl, "default", "app=ha")
	objs := map[string]*api.Pod{}
	for _, p := range pods {
		objs[p.Name] = p
	}
	active, _ = countPods(objs)
	return rsReplicas, active, fmt.Sprintf("replicasets spec.replicas %v, %d active pods:\n%s", rsReplicas, active, describePods(pods))
}

// TestControllersLeaderElectionFailover runs two controller-managers with
// leader election against one cluster (started without its own):
//   - the first holds Lease kube-system/kube-controller-manager and runs
//     the controllers; the second, started later, stays a standby;
//   - only the holder acts: while the leader is frozen (SIGSTOP, shorter
//     than the lease), a scale-up of a Deployment is left untouched — the
//     standby does not act — and it converges once the leader resumes;
//   - SIGKILL the leader and scale the Deployment at once: the standby
//     takes over within the lease duration (plus its retry period and
//     slack) and the Deployment converges to exactly its replicas, with
//     never more active pods than that (a plain scale does not surge).
func TestControllersLeaderElectionFailover(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	bin := requireControllerManager(t)
	c := framework.StartCluster(t, func(o *cluster.Options) {
		o.Nodes = 2
		o.BinDir = binariesWithoutControllerManager(t, bin)
	})
	cl := c.Client(t)

	first := startManager(t, bin, c.KubeconfigPath(), "first")
	var holderFirst string
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		h, err := leaseHolder(t, cl)
		holderFirst = h
		return err == nil && h != "", fmt.Sprintf("lease holder %q (%v); first manager's output:\n%s", h, err, first.out)
	})
	applyYAML(t, c, simpleDeploymentYAML("ha"))
	waitRunningPods(t, c, "default", "app=ha", 3)

	second := startManager(t, bin, c.KubeconfigPath(), "second")
	// Give the standby a few retries; the lease must not move.
	time.Sleep(3 * managerRetryPeriod)
	if h, err := leaseHolder(t, cl); err != nil || h != holderFirst {
		t.Fatalf("after the second manager started the holder is %q (%v), want still %q\nsecond's output:\n%s", h, err, holderFirst, second.out)
	}
	select {
	case <-second.exited:
		t.Fatalf("the standby controller-manager exited:\n%s", second.out)
	default:
	}

	// Only the holder acts: freeze it and scale; nothing may change.
	first.signal(t, syscall.SIGSTOP)
	frozenAt := time.Now()
	c.MustKubectl(t, "scale", "deployment", "ha", "--replicas=6")
	for time.Since(frozenAt) < managerFreeze {
		rs, active, summary := deploymentState(t, cl)
		if len(rs) != 1 || rs[0] != 3 || active != 3 {
			first.signal(t, syscall.SIGCONT)
			t.Fatalf("while the leader was frozen (lease still valid) someone acted on the scale-up: %s", summary)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if h, _ := leaseHolder(t, cl); h != holderFirst {
		first.signal(t, syscall.SIGCONT)
		t.Fatalf("the lease moved to %q during a %v freeze of a %v lease", h, managerFreeze, managerLeaseDuration)
	}
	first.signal(t, syscall.SIGCONT)
	waitRunningPods(t, c, "default", "app=ha", 6)
	if h, _ := leaseHolder(t, cl); h != holderFirst {
		t.Errorf("after resuming, the holder is %q, want the first manager %q", h, holderFirst)
	}

	// Failover: SIGKILL the leader and scale during the switch.
	pods := startTracker(t, "pods of ha", cl.Pods("default"), "app=ha", podLine, func(objs map[string]*api.Pod) string {
		if active, _ := countPods(objs); active > 9 {
			return fmt.Sprintf("%d active pods, more than the 9 replicas", active)
		}
		return ""
	})
	first.signal(t, syscall.SIGKILL)
	killedAt := time.Now()
	<-first.exited
	c.MustKubectl(t, "scale", "deployment", "ha", "--replicas=9")
	maxWait := managerLeaseDuration + 2*time.Duration((1+leaderelection.JitterFactor)*float64(managerRetryPeriod)) + 5*time.Second
	var holderSecond string
	framework.Eventually(t, maxWait, func() (bool, string) {
		h, err := leaseHolder(t, cl)
		holderSecond = h
		return err == nil && h != "" && h != holderFirst, fmt.Sprintf("holder %q (%v), %v after the kill; second's output:\n%s", h, err, time.Since(killedAt), second.out)
	})
	takeover := time.Since(killedAt)
	// The identities are <hostname>_<uuid>: each process logs its own, so
	// the output ties each holder to the process that held the Lease.
	if !strings.Contains(first.out.String(), holderFirst) {
		t.Errorf("the first holder %q is not the first controller-manager's identity; its output:\n%s", holderFirst, first.out)
	}
	if !strings.Contains(second.out.String(), holderSecond) {
		t.Errorf("the new holder %q is not the second controller-manager's identity; its output:\n%s", holderSecond, second.out)
	}
	t.Logf("the standby (%s) took over %v after SIGKILL of %s (lease %v)", holderSecond, takeover, holderFirst, managerLeaseDuration)

	waitRunningPods(t, c, "default", "app=ha", 9)
	// Stable: exactly 9, one ReplicaSet at 9, for a while.
	deadline := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		rs, active, summary := deploymentState(t, cl)
		if len(rs) != 1 || rs[0] != 9 || active != 9 {
			t.Fatalf("after the failover the deployment did not settle at 9: %s", summary)
		}
		time.Sleep(100 * time.Millisecond)
	}
	pods.requireNoViolations(t, 3)
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return strings.Contains(out, "9/9")
	}, "get", "deploy", "ha", "--no-headers")
	if out := c.MustKubectl(t, "get", "lease", "kube-controller-manager", "-n", "kube-system", "-o", "jsonpath={.spec.leaseTransitions}"); out != "1" {
		t.Errorf("leaseTransitions = %q, want 1 (one takeover)", out)
	}
}
