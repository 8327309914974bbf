package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/audit"
	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// TestMain removes the binaries framework.BuildBinaries built for this run.
func TestMain(m *testing.M) { framework.Main(m) }

// TestClusterUpStopUp is the launcher's whole life on one data dir: Up
// brings control-plane, node1 and node2 to Ready as kubectl shows them;
// Stop ends every process it started; Up again on the same dir resumes
// with the same credentials and the objects stored before.
//
// "Gone" is checked by PID and command line (ProcessRecord.Running): a PID
// alone may already belong to someone else.
func TestClusterUpStopUp(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	dir := t.TempDir()
	opts := cluster.DefaultOptions()
	opts.DataDir, opts.Port, opts.Nodes, opts.BinDir = dir, 0, 2, framework.BuildBinaries(t)

	c := framework.StartClusterWith(t, opts)
	requireNodesReady(t, c, "control-plane", "node1", "node2")
	if out := c.Output.String(); !strings.Contains(out, "kplane is ready in") ||
		!strings.Contains(out, "kubectl --kubeconfig "+filepath.Join(dir, "kubeconfig")+" get nodes") {
		t.Errorf("Up did not say how to use the cluster:\n%s", out)
	}
	for _, name := range []string{"apiserver", "scheduler", "kubelet-control-plane", "kubelet-node1", "kubelet-node2"} {
		if _, err := os.Stat(filepath.Join(dir, "logs", name+".log")); err != nil {
			t.Errorf("no log for %s: %v", name, err)
		}
	}
	for _, name := range []string{"scheduler", "kubelet-control-plane", "kubelet-node1", "kubelet-node2"} {
		if _, err := os.Stat(filepath.Join(dir, "kubeconfigs", name+".kubeconfig")); err != nil {
			t.Errorf("no kubeconfig for %s: %v", name, err)
		}
	}
	// The control-plane node carries kubeadm's taint and role label.
	taints := c.MustKubectl(t, "get", "node", "control-plane", "-o", "jsonpath={.spec.taints[*].key}:{.spec.taints[*].effect} {.spec.podCIDR}")
	if taints != "node-role.kubernetes.io/control-plane:NoSchedule 10.244.0.0/24" {
		t.Errorf("control-plane taints and podCIDR = %q", taints)
	}
	c.MustKubectl(t, "create", "configmap", "survivor", "--from-literal=lesson=state lives in etcd")
	requireAudited(t, filepath.Join(dir, "logs", "audit.log"), "create", "configmaps", "survivor", "kubernetes-admin")
	caBefore := readFile(t, filepath.Join(dir, "pki", "ca.crt"))
	tokensBefore := readFile(t, filepath.Join(dir, "pki", "tokens.csv"))

	// Stop: every recorded process is gone, and so is cluster.json.
	state, err := cluster.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	requireRecorded(t, state, opts.BinDir, "kubelet-control-plane", "kubelet-node1", "kubelet-node2")
	for name, rec := range state.Components {
		if rec.Running() {
			t.Errorf("%s (pid %d) still runs after Stop", name, rec.PID)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, cluster.StateFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster.json survived Stop: %v", err)
	}

	// Up again: same CA, same tokens, same objects, nodes Ready again.
	again := framework.StartClusterWith(t, opts)
	requireNodesReady(t, again, "control-plane", "node1", "node2")
	if got := again.MustKubectl(t, "get", "configmap", "survivor", "-o", "jsonpath={.data.lesson}"); got != "state lives in etcd" {
		t.Errorf("configmap after the restart = %q", got)
	}
	if !bytes.Equal(caBefore, readFile(t, filepath.Join(dir, "pki", "ca.crt"))) {
		t.Error("the CA changed across restarts")
	}
	if !bytes.Equal(tokensBefore, readFile(t, filepath.Join(dir, "pki", "tokens.csv"))) {
		t.Error("the tokens changed across restarts")
	}
}

// TestClusterRestartsAKilledComponent kills a kubelet the way a student
// would (kill -9) and expects the launcher to report it and start it again.
func TestClusterRestartsAKilledComponent(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	c := framework.StartCluster(t, func(o *cluster.Options) { o.Nodes = 1 })
	state, err := cluster.ReadState(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	killed := state.Components["kubelet-node1"]
	if !killed.Running() {
		t.Fatalf("kubelet-node1 is not running: %+v", killed)
	}
	if err := syscall.Kill(killed.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		s, err := cluster.ReadState(c.Dir)
		if err != nil {
			return false, err.Error()
		}
		rec := s.Components["kubelet-node1"]
		return rec.PID != killed.PID && rec.Restarts == 1 && rec.Running(), fmt.Sprintf("%+v", rec)
	})
	if out := c.Output.String(); !strings.Contains(out, "kubelet-node1 exited: signal: killed; restarting in 1s") {
		t.Errorf("the launcher did not report the crash:\n%s", out)
	}
	requireNodesReady(t, c, "control-plane", "node1")
}

// TestCtlUpDetachedStatusDown drives the built ctl binary as a user does:
// `ctl up -d` returns once the cluster is ready and leaves it running,
// `ctl status` shows it, `ctl down` stops every process it started.
func TestCtlUpDetachedStatusDown(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	bin := framework.BuildBinaries(t)
	dir := t.TempDir()
	ctl := func(args ...string) (int, string) {
		t.Helper()
		return runCtl(t, bin, append(args, "--data-dir", dir)...)
	}
	t.Cleanup(func() { ctl("down") })

	code, out := ctl("up", "-d", "--port", "0", "--nodes", "1")
	if code != 0 || !strings.Contains(out, "kplane is ready in") || !strings.Contains(out, "running in the background") {
		t.Fatalf("ctl up -d = %d:\n%s\nsupervisor.log:\n%s", code, out, readFile(t, filepath.Join(dir, "logs", "supervisor.log")))
	}
	state, err := cluster.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !state.Supervisor.Running() {
		t.Fatalf("the supervisor is not running: %+v", state.Supervisor)
	}
	requireRecorded(t, state, bin, "kubelet-control-plane", "kubelet-node1")

	// The foreground ctl has exited; the cluster keeps running.
	kubeconfig := filepath.Join(dir, "kubeconfig")
	nodes := framework.KubectlWith(t, kubeconfig, t.TempDir(), "", "get", "nodes", "--no-headers")
	if nodes.Err != nil || !strings.Contains(nodes.Stdout, "node1") {
		t.Fatalf("kubectl get nodes: %v\n%s%s", nodes.Err, nodes.Stdout, nodes.Stderr)
	}
	code, out = ctl("status")
	if code != 0 {
		t.Errorf("ctl status exited %d:\n%s", code, out)
	}
	for _, want := range []string{"kplane is running in", "supervisor", "apiserver", "kubelet-node1", "Running"} {
		if !strings.Contains(out, want) {
			t.Errorf("ctl status lacks %q:\n%s", want, out)
		}
	}
	if !containsLine(out, "node1", "Ready") || !containsLine(out, "control-plane", "Ready") {
		t.Errorf("ctl status does not show the nodes Ready:\n%s", out)
	}

	// A second up on a running data dir is refused.
	if code, out := ctl("up", "-d", "--port", "0"); code == 0 || !strings.Contains(out, "already running") {
		t.Errorf("second ctl up -d = %d:\n%s", code, out)
	}

	code, out = ctl("down")
	if code != 0 || !strings.Contains(out, "stopped") {
		t.Errorf("ctl down = %d:\n%s", code, out)
	}
	all := map[string]cluster.ProcessRecord{"supervisor": state.Supervisor}
	for name, rec := range state.Components {
		all[name] = rec
	}
	for name, rec := range all {
		if rec.Running() {
			t.Errorf("%s (pid %d) still runs after ctl down", name, rec.PID)
		}
	}
	if code, out := ctl("status"); code != 1 || !strings.Contains(out, "not running") {
		t.Errorf("ctl status after down = %d:\n%s", code, out)
	}
}

// TestCtlUpForegroundCtrlC runs `ctl up` in the foreground: component logs
// appear with their prefix, and SIGINT (Ctrl-C) stops everything cleanly.
func TestCtlUpForegroundCtrlC(t *testing.T) {
	t.Parallel()
	bin := framework.BuildBinaries(t)
	dir := t.TempDir()
	out := &framework.SyncBuffer{}
	cmd := exec.Command(filepath.Join(bin, "ctl"), "up", "--data-dir", dir, "--port", "0", "--nodes", "1")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		return strings.Contains(out.String(), "kplane is ready in"), out.String()
	})
	state, err := cluster.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"[apiserver]", "[kubelet-node1]"} {
		if !strings.Contains(out.String(), prefix) {
			t.Errorf("the output has no %s lines:\n%s", prefix, out)
		}
	}

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("ctl up ended with %v after Ctrl-C:\n%s", waitErr, out)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("ctl up did not stop after Ctrl-C:\n%s", out)
	}
	if !strings.Contains(out.String(), "kplane stopped.") {
		t.Errorf("ctl up did not say it stopped:\n%s", out)
	}
	for name, rec := range state.Components {
		if rec.Running() {
			t.Errorf("%s (pid %d) still runs after Ctrl-C", name, rec.PID)
		}
	}
}

// requireNodesReady waits until kubectl shows each node with STATUS Ready.
func requireNodesReady(t *testing.T, c *framework.LocalCluster, nodes ...string) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		r := c.Kubectl(t, "", "get", "nodes", "--no-headers")
		if r.Err != nil {
			return false, r.Stderr
		}
		for _, n := range nodes {
			if !containsLine(r.Stdout, n, "Ready") {
				return false, r.Stdout
			}
		}
		return true, ""
	})
}

// requireRecorded checks that cluster.json names exactly the apiserver,
// the scheduler, the controller-manager when it is built, and kubelets.
func requireRecorded(t *testing.T, state *cluster.State, bin string, kubelets ...string) {
	t.Helper()
	want := append([]string{"apiserver", "scheduler"}, kubelets...)
	if framework.HasBinary(bin, "controller-manager") {
		want = append(want, "controller-manager")
	}
	if framework.HasBinary(bin, "dns") {
		want = append(want, "dns")
	}
	if framework.HasBinary(bin, "cloud-controller-manager") {
		want = append(want, "cloud-controller-manager")
	}
	if framework.HasBinary(bin, "metrics-server") {
		want = append(want, "metrics-server")
	}
	if framework.HasBinary(bin, "kube-proxy") { // one beside each kubelet
		for _, kubelet := range kubelets {
			want = append(want, cluster.KubeProxyComponent(strings.TrimPrefix(kubelet, "kubelet-")))
		}
	}
	for _, name := range want {
		if _, ok := state.Components[name]; !ok {
			t.Errorf("cluster.json does not record %s: %v", name, state.Components)
		}
	}
	if len(state.Components) != len(want) {
		t.Errorf("cluster.json records %d components, want %v: %v", len(state.Components), want, state.Components)
	}
}

// containsLine reports whether some line of text starts with the field
// first and has second as its next field.
func containsLine(text, first, second string) bool {
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 2 && fields[0] == first && fields[1] == second {
			return true
		}
	}
	return false
}

// runCtl runs the built ctl with args and returns its exit code and
// combined output.
func runCtl(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "ctl"), args...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	default:
		t.Fatalf("ctl %v: %v", args, err)
		return 0, ""
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// requireAudited waits until the audit log `ctl up` turned on has the
// ResponseComplete Event, at the default policy's Metadata level, of
// user's verb on the named object.
func requireAudited(t *testing.T, logPath, verb, resource, name, user string) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		data, err := os.ReadFile(logPath)
		if err != nil {
			return false, err.Error()
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var ev audit.Event
			if json.Unmarshal(line, &ev) != nil || ev.ObjectRef == nil {
				continue
			}
			if ev.Verb == verb && ev.ObjectRef.Resource == resource && ev.ObjectRef.Name == name && ev.User.Username == user &&
				ev.Stage == audit.StageResponseComplete && ev.Level == audit.LevelMetadata && ev.ResponseStatus != nil && ev.ResponseStatus.Code < 300 {
				return true, ""
			}
		}
		return false, fmt.Sprintf("no ResponseComplete event for %s %s/%s by %s in %s (%d bytes)", verb, resource, name, user, logPath, len(data))
	})
}
