package e2e

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// Issue 14, done-when 4, and the cloud-controller-manager's other
// controllers, driven as a user drives them: real kubectl and the built
// ctl against a `ctl up` cluster, which starts bin/cloud-controller-manager
// and its kubelets with --cloud-provider=external.

// cloudTimeout bounds a wait for the cloud-controller-manager: a watch
// event, one sync, a few writes, on a loaded machine.
const cloudTimeout = 30 * time.Second

// requireCloudControllerManager builds the binaries and fails unless the
// cloud-controller-manager is among them.
func requireCloudControllerManager(t *testing.T) string {
	t.Helper()
	bin := requireControllerManager(t)
	if !framework.HasBinary(bin, "cloud-controller-manager") {
		t.Fatalf("bin/cloud-controller-manager was not built: ./cmd/cloud-controller-manager is missing")
	}
	return bin
}

func TestCloudLoadBalancerNodesAndRoutes(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	bin := requireCloudControllerManager(t)
	c := framework.StartCluster(t, nil)
	ctl := func(args ...string) string {
		t.Helper()
		return faultCtl(t, bin, c, args...)
	}

	// ctl up said ready only once the cloud had initialized every node.
	out := c.MustKubectl(t, "get", "nodes", "-o",
		`jsonpath={range .items[*]}{.metadata.name} {.spec.providerID} {.metadata.labels.topology\.kubernetes\.io/zone} {.metadata.labels.topology\.kubernetes\.io/region} {.metadata.labels.node\.kubernetes\.io/instance-type} [{.spec.taints[*].key}]{"\n"}{end}`)
	want := "control-plane kplane://control-plane kplane-local-a kplane-local kplane.small [node-role.kubernetes.io/control-plane]\n" +
		"node1 kplane://node1 kplane-local-b kplane-local kplane.small []\n" +
		"node2 kplane://node2 kplane-local-c kplane-local kplane.small []\n"
	if out != want {
		t.Fatalf("nodes (name providerID zone region type [taints]):\n%s\nwant:\n%s", out, want)
	}

	// One route per node's pod range, and each node's network available.
	framework.Eventually(t, cloudTimeout, func() (bool, string) {
		routes := ctl("cloud", "routes")
		lines := nonEmptyLines(routes)
		ok := len(lines) == 4 && strings.HasPrefix(lines[0], "DESTINATION CIDR   TARGET NODE")
		for i, node := range cluster.NodeNames(2) {
			ok = ok && len(lines) == 4 && strings.Contains(lines[i+1], node)
		}
		return ok, "ctl cloud routes printed:\n" + routes
	})
	if out := c.MustKubectl(t, "get", "node", "node1", "-o", `jsonpath={.status.conditions[?(@.type=="NetworkUnavailable")].reason}`); out != "RouteCreated" {
		t.Errorf("node1's NetworkUnavailable reason = %q, want RouteCreated", out)
	}

	// kubectl expose … --type LoadBalancer: an EXTERNAL-IP from the pool.
	c.MustKubectl(t, "create", "deployment", "web", "--image=nginx")
	if out := c.MustKubectl(t, "expose", "deploy", "web", "--type", "LoadBalancer", "--port", "80"); strings.TrimSpace(out) != "service/web exposed" {
		t.Errorf("kubectl expose deploy web --type LoadBalancer --port 80 printed %q, want service/web exposed", out)
	}
	pool := netip.MustParsePrefix("198.51.100.0/24")
	var externalIP string
	waitKubectl(t, c, cloudTimeout, func(stdout string) bool {
		lines := nonEmptyLines(stdout)
		if len(lines) != 2 {
			return false
		}
		fields := strings.Fields(lines[1])
		addr, err := netip.ParseAddr(fields[3])
		externalIP = fields[3]
		return err == nil && pool.Contains(addr)
	}, "get", "svc", "web")
	// One address: the simulated cloud makes one load balancer per Service.
	if ingress := strings.Fields(c.MustKubectl(t, "get", "svc", "web", "-o", "jsonpath={.status.loadBalancer.ingress[*].ip}")); len(ingress) != 1 || ingress[0] != externalIP {
		t.Errorf("status.loadBalancer.ingress IPs = %q, want the one address kubectl shows, %s", ingress, externalIP)
	}
	if finalizers := c.MustKubectl(t, "get", "svc", "web", "-o", "jsonpath={.metadata.finalizers}"); !strings.Contains(finalizers, "service.kubernetes.io/load-balancer-cleanup") {
		t.Errorf("finalizers = %s, want the load-balancer-cleanup finalizer", finalizers)
	}
	describe := waitKubectl(t, c, cloudTimeout, func(stdout string) bool { return strings.Contains(stdout, "EnsuredLoadBalancer") },
		"describe", "svc", "web")
	for _, want := range []string{
		"LoadBalancer Ingress:     " + externalIP,
		"Normal  EnsuringLoadBalancer",
		"service-controller  Ensuring load balancer",
		"Normal  EnsuredLoadBalancer",
		"service-controller  Ensured load balancer",
	} {
		if !strings.Contains(describe, want) {
			t.Errorf("kubectl describe svc web lacks %q:\n%s", want, describe)
		}
	}
	lbs := ctl("cloud", "load-balancers")
	if lines := nonEmptyLines(lbs); len(lines) != 2 || !strings.Contains(lines[1], "default/web   "+externalIP+"   80/TCP   node1,node2") {
		t.Errorf("ctl cloud load-balancers printed:\n%s\nwant default/web at %s on port 80/TCP over node1,node2", lbs, externalIP)
	}

	// A restarted cloud-controller-manager rebuilds its cloud from the
	// Services' status: web keeps its address, a new Service gets the next.
	ctl("fault", "kill", "cloud-controller-manager")
	c.MustKubectl(t, "expose", "deployment", "web", "--name", "web2", "--type", "LoadBalancer", "--port", "81")
	waitKubectl(t, c, cloudTimeout, func(stdout string) bool { return stdout == "198.51.100.2" },
		"get", "svc", "web2", "-o", "jsonpath={.status.loadBalancer.ingress[0].ip}")
	if lbs := ctl("cloud", "load-balancers"); !strings.Contains(lbs, "default/web    "+externalIP) {
		t.Errorf("after the restart, ctl cloud load-balancers printed:\n%s\nwant web still at %s", lbs, externalIP)
	}
	c.MustKubectl(t, "delete", "svc", "web2")

	// Deleting the Service deletes the load balancer, then the finalizer
	// lets the Service go.
	c.MustKubectl(t, "delete", "svc", "web", "--wait=false")
	framework.Eventually(t, cloudTimeout, func() (bool, string) {
		r := c.Kubectl(t, "", "get", "svc", "web")
		return r.Err != nil && strings.Contains(r.Stderr, `services "web" not found`), fmt.Sprintf("kubectl get svc web: %s%s", r.Stdout, r.Stderr)
	})
	if code, out := runCtl(t, bin, "cloud", "load-balancers", "--data-dir", c.Dir); code != 0 || strings.TrimSpace(out) != "No load balancers found in the cloud." {
		t.Errorf("ctl cloud load-balancers after the delete: exit %d\n%s", code, out)
	}
	events := c.MustKubectl(t, "get", "events", "--field-selector", "involvedObject.name=web,involvedObject.kind=Service", "-o", "jsonpath={.items[*].reason}")
	for _, want := range []string{"DeletingLoadBalancer", "DeletedLoadBalancer"} {
		if !strings.Contains(events, want) {
			t.Errorf("the Service's events %q lack %s", events, want)
		}
	}
}

// On a --virtual-clock cluster: a shut-down machine's node is tainted
// node.cloudprovider.kubernetes.io/shutdown once it is NotReady, and a
// deleted machine's Node is deleted, with its route.
func TestCloudNodeLifecycleShutdownAndDelete(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	bin := requireCloudControllerManager(t)
	c := framework.StartCluster(t, func(o *cluster.Options) { o.VirtualClock = true })
	ctl := func(args ...string) string {
		t.Helper()
		return faultCtl(t, bin, c, args...)
	}
	if out := ctl("cloud", "instance", "shutdown", "node1"); !strings.HasPrefix(out, "instance kplane://node1 (kplane-local-b) is shutdown") {
		t.Fatalf("ctl cloud instance shutdown node1 printed:\n%s", out)
	}
	ctl("cloud", "instance", "delete", "node2")
	if out := ctl("cloud", "instances"); !strings.Contains(out, "node1           kplane://node1           kplane.small   kplane-local-b   kplane-local   shutdown") ||
		!strings.Contains(out, "deleted") {
		t.Fatalf("ctl cloud instances printed:\n%s", out)
	}
	// Past the node-monitor grace period (50 s) on the cluster clock.
	if code, out := runCtl(t, bin, "time", "advance", "60s", "--kubeconfig", c.KubeconfigPath()); code != 0 {
		t.Fatalf("ctl time advance 60s: exit %d\n%s", code, out)
	}
	waitKubectl(t, c, cloudTimeout, func(stdout string) bool { return strings.Contains(stdout, "node.cloudprovider.kubernetes.io/shutdown") },
		"get", "node", "node1", "-o", "jsonpath={.spec.taints[*].key}")
	framework.Eventually(t, cloudTimeout, func() (bool, string) {
		r := c.Kubectl(t, "", "get", "node", "node2")
		return r.Err != nil && strings.Contains(r.Stderr, `nodes "node2" not found`), "kubectl get node node2: " + r.Stdout + r.Stderr
	})
	framework.Eventually(t, cloudTimeout, func() (bool, string) {
		routes := ctl("cloud", "routes")
		return !strings.Contains(routes, "node2") && strings.Contains(routes, "node1"), "ctl cloud routes printed:\n" + routes
	})

	// The machine back on: the kubelet resumes, the node is Ready, the
	// taint goes.
	ctl("cloud", "instance", "start", "node1")
	waitKubectl(t, c, cloudTimeout, func(stdout string) bool { return !strings.Contains(stdout, "shutdown") },
		"get", "node", "node1", "-o", "jsonpath={.spec.taints[*].key}")
}
