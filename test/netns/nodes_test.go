package netns

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/auth"
	"kplane/test/framework"
)

// securePort is the apiserver's port in the api namespace (a namespace has
// ports of its own, so upstream's default collides with nothing).
const securePort = "6443"

// Timeouts of the test's waits: generous for a loaded 2-core CI machine.
const (
	startTimeout = 60 * time.Second
	podTimeout   = 20 * time.Second
)

// helloDeployment runs one pod on each node: the hostPort lets the
// scheduler's NodePorts filter put at most one replica on a node. On n1
// (the process runtime) the container's command really runs and says
// whether it sees the node's veth address, which only n1's namespace has;
// on n2 (the simulated runtime) its logs come from the annotation.
const helloDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: hello
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels: {app: hello}
  template:
    metadata:
      labels: {app: hello}
      annotations:
        sim.kplane.io/logs: "hello from the simulated runtime"
    spec:
      containers:
      - name: hello
        image: busybox
        command: ["sh", "-c", "echo hello from the process runtime; exec sleep 3600"]
        ports:
        - {containerPort: 8080, hostPort: 8080}
`

// TestNodesInOtherNetworkNamespaces is issue 17's "nodes on other hosts":
// two kubelets in namespaces of their own register through the apiserver's
// veth address, go Ready, run a Deployment's pods and report their status;
// `kubectl logs` and `kubectl exec` reach the kubelets back across the veth
// network.
func TestNodesInOtherNetworkNamespaces(t *testing.T) {
	began := time.Now()
	top := newTopology(t)
	kubectl := framework.RequireKubectl(t)
	bin := framework.BuildCommands(t, "apiserver", "controller-manager", "scheduler", "kubelet", "ctl")
	t.Logf("namespaces made and binaries built in %s", time.Since(began).Round(time.Millisecond))
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	api, n1, n2 := top.hosts["api"], top.hosts["n1"], top.hosts["n2"]
	serverURL := "https://" + api.ip + ":" + securePort

	// The control plane, in the api namespace, serving on its veth address
	// only, and allowed to dial kubelets on the veth network.
	apiserver := startIn(t, api.netns, dir, "apiserver", filepath.Join(bin, "apiserver"),
		"--data-dir", dataDir, "--bind-address", api.ip, "--secure-port", securePort, "--kubelet-networks", networkCIDR)
	admin := filepath.Join(dataDir, "kubeconfig")
	// The admin's kubectl runs in n2's namespace: every request crosses the
	// bridge, and the TLS handshake proves the serving certificate names
	// the veth address.
	adminKubectl := func(stdin string, args ...string) (string, error) {
		return kubectlIn(kubectl, n2.netns, admin, stdin, args...)
	}
	t.Cleanup(func() {
		if t.Failed() { // what the cluster looked like, before its processes stop
			out, _ := adminKubectl("", "get", "nodes,deployments,replicasets,pods,events", "-A", "-o", "wide")
			t.Logf("--- the cluster when the test failed:\n%s", out)
		}
	})
	framework.Eventually(t, startTimeout, func() (bool, string) {
		failIfExited(t, apiserver)
		out, err := adminKubectl("", "get", "--raw", "/readyz")
		return err == nil && out == "ok", fmt.Sprintf("/readyz at %s from %s: %v: %s", serverURL, n2.netns, err, out)
	})
	if out, err := adminKubectl("", "config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"); err != nil || out != serverURL {
		t.Fatalf("the admin kubeconfig names %q (%v), want %s", out, err, serverURL)
	}

	// Credentials made by the admin, as `ctl user add` makes them: client
	// certificates signed by the cluster CA, in kubeconfigs naming the
	// veth address.
	kubeconfigFor := func(user auth.User) string {
		args := []string{"user", "add", user.Name, "--data-dir", dataDir}
		for _, g := range user.Groups {
			args = append(args, "--group", g)
		}
		if out, err := exec.Command(filepath.Join(bin, "ctl"), args...).CombinedOutput(); err != nil {
			t.Fatalf("ctl %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return filepath.Join(dataDir, "users", user.Name+".kubeconfig")
	}
	controllerManager := startIn(t, api.netns, dir, "controller-manager", filepath.Join(bin, "controller-manager"),
		"--kubeconfig", kubeconfigFor(auth.ControllerManagerUser()), "--bind-address", "127.0.0.1:0",
		// Each controller acts as its own ServiceAccount with its
		// system:controller:* role, as kubeadm runs it (and `ctl up`).
		"--service-account-private-key-file", filepath.Join(dataDir, "pki", "sa.key"), "--use-service-account-credentials")
	scheduler := startIn(t, api.netns, dir, "scheduler", filepath.Join(bin, "scheduler"),
		"--kubeconfig", kubeconfigFor(auth.SchedulerUser()), "--bind-address", "127.0.0.1:0")

	// The nodes: n1 runs containers as real processes (inside its
	// namespace), n2 simulates them. Each reports its veth address as its
	// InternalIP and serves the kubelet API there.
	kubelets := []*component{controllerManager, scheduler, apiserver}
	for _, node := range []struct {
		host    host
		runtime string
	}{{n1, "process"}, {n2, "simulated"}} {
		kubelets = append(kubelets, startIn(t, node.host.netns, dir, "kubelet-"+node.host.role, filepath.Join(bin, "kubelet"),
			"--kubeconfig", kubeconfigFor(auth.NodeUser(node.host.role)), "--node-name", node.host.role,
			"--node-ip", node.host.ip, "--address", node.host.ip, "--runtime", node.runtime, "--debug-address", "127.0.0.1:0"))
	}
	running := kubelets // every component started, checked at each poll

	// Both nodes register with their veth address and go Ready.
	framework.Eventually(t, startTimeout, func() (bool, string) {
		failIfExited(t, running...)
		out, err := adminKubectl("", "get", "nodes", "-o",
			`jsonpath={range .items[*]}{.metadata.name} {.status.addresses[?(@.type=="InternalIP")].address} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}`)
		want := fmt.Sprintf("n1 %s True\nn2 %s True", n1.ip, n2.ip)
		return err == nil && out == want, fmt.Sprintf("nodes (name, InternalIP, Ready): %q, want %q (%v)", out, want, err)
	})

	// A Deployment spreads over both nodes; the kubelets report the pods
	// Running with their node's address as hostIP, and the controllers see
	// both replicas available.
	t.Logf("both nodes Ready after %s", time.Since(began).Round(time.Millisecond))
	if out, err := adminKubectl(helloDeployment, "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, out)
	}
	podOn := map[string]string{} // node → pod name
	framework.Eventually(t, podTimeout, func() (bool, string) {
		failIfExited(t, running...)
		out, err := adminKubectl("", "get", "pods", "-l", "app=hello", "-o",
			`jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.status.phase} {.status.hostIP} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}`)
		if err != nil {
			return false, fmt.Sprintf("%v: %s", err, out)
		}
		clear(podOn)
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) != 5 || f[2] != "Running" || f[4] != "True" || f[3] != top.hosts[f[1]].ip {
				return false, fmt.Sprintf("pods (name, node, phase, hostIP, Ready): %q", out)
			}
			podOn[f[1]] = f[0]
		}
		return podOn["n1"] != "" && podOn["n2"] != "", fmt.Sprintf("pods (name, node, phase, hostIP, Ready): %q", out)
	})
	framework.Eventually(t, podTimeout, func() (bool, string) {
		out, err := adminKubectl("", "get", "deployment", "hello", "-o", "jsonpath={.status.availableReplicas}")
		return err == nil && out == "2", fmt.Sprintf("availableReplicas %q (%v)", out, err)
	})

	// kubectl logs: the apiserver dials each kubelet at its veth address.
	for node, want := range map[string]string{"n1": "hello from the process runtime", "n2": "hello from the simulated runtime"} {
		framework.Eventually(t, podTimeout, func() (bool, string) {
			out, err := adminKubectl("", "logs", podOn[node])
			return err == nil && strings.Contains(out, want), fmt.Sprintf("kubectl logs %s (on %s): %v: %q, want %q", podOn[node], node, err, out, want)
		})
	}

	// kubectl exec into n1's pod: the command runs in n1's namespace, the
	// only one where n1's address is local.
	probe := fmt.Sprintf("grep -q ' %s$' /proc/net/fib_trie && echo local address %s", strings.ReplaceAll(n1.ip, ".", `\.`), n1.ip)
	out, err := adminKubectl("", "exec", podOn["n1"], "--", "sh", "-c", probe)
	if want := "local address " + n1.ip; err != nil || out != want {
		t.Fatalf("kubectl exec %s -- sh -c %q: %v: %q, want %q", podOn["n1"], probe, err, out, want)
	}
	t.Logf("two nodes in other network namespaces registered, ran pods and served logs and exec in %s", time.Since(began).Round(time.Millisecond))
}

// failIfExited fails the test at once when a component has exited, rather
// than letting a wait time out.
func failIfExited(t *testing.T, components ...*component) {
	t.Helper()
	for _, c := range components {
		if exited, log := c.exited(); exited {
			t.Fatalf("%s exited; the end of its log:\n%s", c.name, log)
		}
	}
}
