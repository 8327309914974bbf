package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// TestPodsRunOnAClusterOfThreeKubelets: on a `ctl up` cluster whose three
// worker kubelets are equal, 30 bare pods become Running, spread by
// LeastAllocated 10/10/10, none on the tainted control-plane node;
// `kubectl get po -o wide` shows each pod's IP (from its node's podCIDR)
// and NODE; the nodes are Ready and their Leases renew.
func TestPodsRunOnAClusterOfThreeKubelets(t *testing.T) {
	t.Parallel()
	framework.RequireKubectl(t)
	c := framework.StartCluster(t, func(o *cluster.Options) { o.Nodes = 3 })
	cl := c.Client(t)
	ctx := context.Background()

	for i := 0; i < 30; i++ {
		pod := &api.Pod{
			ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("web-%02d", i), Namespace: "default"},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1.27.0",
				Resources: api.ResourceRequirements{Requests: api.ResourceList{
					"cpu": api.MustParseQuantity("100m"), "memory": api.MustParseQuantity("64Mi")}}}}},
		}
		if _, err := cl.Pods("default").Create(ctx, pod, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		list, err := cl.Pods("default").List(ctx, client.ListOptions{FieldSelector: "status.phase=Running"})
		if err != nil {
			return false, err.Error()
		}
		return len(list.Items) == 30, fmt.Sprintf("%d of 30 pods Running", len(list.Items))
	})

	out := c.MustKubectl(t, "get", "po", "-o", "wide", "--no-headers")
	perNode := map[string]int{}
	line := regexp.MustCompile(`^(web-\d\d)\s+1/1\s+Running\s+0\s+\S+\s+(10\.244\.(\d+)\.\d+)\s+(\S+)\s+<none>\s+<none>$`)
	cidrOf := map[string]string{"node1": "1", "node2": "2", "node3": "3"}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("unexpected `get po -o wide` line: %q", l)
			continue
		}
		perNode[m[4]]++
		if cidrOf[m[4]] != m[3] {
			t.Errorf("pod %s on %s has IP %s outside the node's podCIDR", m[1], m[4], m[2])
		}
	}
	if perNode["node1"] != 10 || perNode["node2"] != 10 || perNode["node3"] != 10 || perNode["control-plane"] != 0 {
		t.Errorf("pods per node = %v, want 10 on each worker and none on control-plane", perNode)
	}

	nodes := c.MustKubectl(t, "get", "nodes", "--no-headers")
	for _, n := range []string{"control-plane", "node1", "node2", "node3"} {
		if !regexp.MustCompile(`(?m)^` + n + `\s+Ready\s`).MatchString(nodes) {
			t.Errorf("node %s is not Ready:\n%s", n, nodes)
		}
	}

	// Node Leases renew: renewTime moves on.
	renewTime := func() string {
		return c.MustKubectl(t, "get", "lease", "node1", "-n", "kube-node-lease", "-o", "jsonpath={.spec.renewTime}")
	}
	first := renewTime()
	framework.Eventually(t, 25*time.Second, func() (bool, string) {
		now := renewTime()
		return now != first && now != "", "renewTime still " + now
	})
}
