package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// TestHAControlPlane is issue 17's Done-when 3, on one cluster started as
// `ctl up --etcd-members 3 --apiservers 2`: kill -9 an etcd member and an
// apiserver during a 1 000-pod create loop through the load balancer and
// find every acknowledged pod afterwards; create 500 Services at once,
// split over both apiservers' own addresses, and find no ClusterIP or
// NodePort twice; and see `kubectl get endpoints kubernetes` list both
// apiservers, then drop one that died.
func TestHAControlPlane(t *testing.T) {
	// Parallel like the other cluster tests: its apiservers bind 127.0.0.2
	// and 127.0.0.3 on a port free on 127.0.0.1, and every other port it
	// uses is chosen free as theirs are.
	t.Parallel()
	framework.BuildBinaries(t) // shared by every e2e test: not this test's cost
	began := time.Now()
	// Registered first, so it runs last: after the cluster has stopped.
	t.Cleanup(func() { t.Logf("the test took %s, from ctl up to stopped", time.Since(began).Round(time.Millisecond)) })
	c := framework.StartCluster(t, func(o *cluster.Options) {
		o.EtcdMembers, o.APIServers, o.Nodes = 3, 2, 1
		// The built-in balancer whether or not haproxy is installed, so
		// the test checks kplane's own code the same way everywhere.
		o.LoadBalancer = cluster.LoadBalancerBuiltin
	})
	t.Logf("HA cluster ready in %s", time.Since(began).Round(time.Millisecond))
	if !strings.HasPrefix(c.Server(), "https://127.0.0.1:") {
		t.Fatalf("the kubeconfig names %s, not the balancer on 127.0.0.1", c.Server())
	}

	t.Run("acknowledged pods survive an etcd member and an apiserver killed", func(t *testing.T) {
		step := time.Now()
		createPodsWhileKilling(t, c)
		t.Logf("took %s", time.Since(step).Round(time.Millisecond))
	})
	t.Run("500 concurrent Services over both apiservers get distinct ClusterIPs and NodePorts", func(t *testing.T) {
		step := time.Now()
		createServicesOnBothAPIServers(t, c)
		t.Logf("took %s", time.Since(step).Round(time.Millisecond))
	})
	t.Run("endpoints kubernetes lists both apiservers and drops a dead one", func(t *testing.T) {
		step := time.Now()
		checkKubernetesEndpoints(t, c)
		t.Logf("took %s", time.Since(step).Round(time.Millisecond))
	})
}

// createPodsWhileKilling creates 1 000 bare pods through the balancer with
// eight workers, kills -9 etcd-2 after 300 and the first apiserver after
// 600, and then checks that every pod whose create was acknowledged exists.
// A create that failed is retried by name; AlreadyExists then means the
// first attempt was committed, so it counts as acknowledged too.
func createPodsWhileKilling(t *testing.T, c *framework.LocalCluster) {
	const total, workers = 1000, 8
	const ns = "default"
	cl := c.Client(t)
	ctx := context.Background()
	var next, created atomic.Int64
	var mu sync.Mutex
	acknowledged := map[string]bool{}
	var failures []string
	killed := make(chan string, 2)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= total {
					return
				}
				switch i {
				case 300:
					killed <- killByPID(t, c, cluster.EtcdComponent(2))
				case 600:
					killed <- killByPID(t, c, cluster.APIServerComponent)
				}
				name := fmt.Sprintf("ha-pod-%04d", i)
				pod := &api.Pod{
					ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns},
					// No scheduler takes it: the test is about storage,
					// and a thousand pods need no node.
					Spec: api.PodSpec{SchedulerName: "ha-test-unscheduled", Containers: []api.Container{{Name: "c", Image: "busybox"}}},
				}
				// Up to 5 s of retries: a create cut by a kill is retried at
				// once through the balancer, but the surviving etcd members
				// and apiserver may answer slowly for a while on a busy
				// 2-CPU runner that also runs the other tests.
				var err error
				for attempt := 0; attempt < 10; attempt++ {
					_, err = cl.Pods(ns).Create(ctx, pod, client.CreateOptions{})
					if err == nil || apierrors.IsAlreadyExists(err) {
						err = nil
						break
					}
					time.Sleep(500 * time.Millisecond)
				}
				mu.Lock()
				if err == nil {
					acknowledged[name] = true
					created.Add(1)
				} else {
					failures = append(failures, fmt.Sprintf("%s: %v", name, err))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(killed)
	for what := range killed {
		t.Logf("killed %s", what)
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d creates failed after retries (first: %s)", len(failures), total, failures[0])
	}
	list, err := cl.Pods(ns).List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exists := map[string]bool{}
	for _, p := range list.Items {
		if exists[p.Name] {
			t.Errorf("pod %s listed twice", p.Name)
		}
		exists[p.Name] = true
	}
	var lost []string
	for name := range acknowledged {
		if !exists[name] {
			lost = append(lost, name)
		}
	}
	slices.Sort(lost)
	if len(lost) > 0 {
		t.Errorf("%d acknowledged pods are missing: %v", len(lost), lost)
	}
	t.Logf("%d of %d creates acknowledged, %d pods exist", created.Load(), total, len(exists))

	// The controllers, the scheduler and the kubelets lost their
	// connections to the killed apiserver and reconnected through the
	// balancer: a new Deployment still rolls out.
	c.MustKubectl(t, "create", "deployment", "ha-web", "--image=nginx", "--replicas=2")
	c.MustKubectl(t, "rollout", "status", "deployment/ha-web", "--timeout=60s")

	// Both come back under the supervisor before the next checks.
	waitRestarted(t, c, cluster.EtcdComponent(2))
	waitRestarted(t, c, cluster.APIServerComponent)
	waitReadyz(t, c, cluster.APIServerAddress(1))
}

// killByPID sends SIGKILL to component's process as cluster.json records
// it, the way `ctl fault kill` does, and says what it killed.
func killByPID(t *testing.T, c *framework.LocalCluster, component string) string {
	rec, _, err := cluster.Signal(c.Dir, component, syscall.SIGKILL)
	if err != nil {
		t.Errorf("kill %s: %v", component, err)
		return component + ": " + err.Error()
	}
	return fmt.Sprintf("%s (pid %d)", component, rec.PID)
}

// waitRestarted waits until the supervisor has started component again.
func waitRestarted(t *testing.T, c *framework.LocalCluster, component string) {
	t.Helper()
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		state, err := cluster.ReadState(c.Dir)
		if err != nil {
			return false, err.Error()
		}
		rec := state.Components[component]
		return rec.Restarts >= 1 && rec.Running(), fmt.Sprintf("%s: %+v", component, rec)
	})
}

// directClient is an admin client of one apiserver at its own address, not
// through the balancer; the serving certificate names every apiserver
// (--tls-san), so TLS verifies as it does through the balancer.
func directClient(t *testing.T, c *framework.LocalCluster, address string) *client.Client {
	t.Helper()
	port := c.Server()[strings.LastIndex(c.Server(), ":")+1:]
	return framework.NewClient(t, c.KubeconfigPath(), func(cfg *client.Config) {
		cfg.Host = "https://" + address + ":" + port
	})
}

// waitReadyz waits until the apiserver at address answers /readyz.
func waitReadyz(t *testing.T, c *framework.LocalCluster, address string) {
	t.Helper()
	direct := directClient(t, c, address)
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		status, body, err := direct.Do(context.Background(), http.MethodGet, "/readyz", nil, nil)
		if err != nil {
			return false, err.Error()
		}
		return status == http.StatusOK, fmt.Sprintf("%d %s", status, body)
	})
}

// createServicesOnBothAPIServers creates 500 NodePort Services with 32
// workers, alternating between the two apiservers' own addresses, and
// checks that no ClusterIP and no NodePort was handed out twice.
func createServicesOnBothAPIServers(t *testing.T, c *framework.LocalCluster) {
	const total, workers = 500, 32
	const ns = "default"
	clients := []*client.Client{directClient(t, c, cluster.APIServerAddress(1)), directClient(t, c, cluster.APIServerAddress(2))}
	ctx := context.Background()
	var next atomic.Int64
	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= total {
					return
				}
				svc := &api.Service{
					ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("ha-svc-%03d", i), Namespace: ns},
					Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Selector: map[string]string{"app": "none"},
						Ports: []api.ServicePort{{Port: 80, TargetPort: api.FromInt(8080)}}},
				}
				if _, err := clients[i%2].Services(ns).Create(ctx, svc, client.CreateOptions{}); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%s via apiserver %d: %v", svc.Name, i%2+1, err))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Errorf("%d of %d Service creates failed (first: %s)", len(failures), total, failures[0])
	}
	list, err := clients[0].Services(ns).List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clusterIPs, nodePorts := map[string]string{}, map[int32]string{}
	services := 0
	for _, svc := range list.Items {
		if !strings.HasPrefix(svc.Name, "ha-svc-") {
			continue
		}
		services++
		if other, dup := clusterIPs[svc.Spec.ClusterIP]; dup {
			t.Errorf("ClusterIP %s given to both %s and %s", svc.Spec.ClusterIP, other, svc.Name)
		}
		clusterIPs[svc.Spec.ClusterIP] = svc.Name
		for _, p := range svc.Spec.Ports {
			if other, dup := nodePorts[p.NodePort]; dup {
				t.Errorf("NodePort %d given to both %s and %s", p.NodePort, other, svc.Name)
			}
			nodePorts[p.NodePort] = svc.Name
		}
	}
	if services != total-len(failures) {
		t.Errorf("%d Services exist, want %d", services, total-len(failures))
	}
	t.Logf("%d Services: %d distinct ClusterIPs, %d distinct NodePorts", services, len(clusterIPs), len(nodePorts))
}

// checkKubernetesEndpoints reads `kubectl get endpoints kubernetes` until it
// lists both apiservers, then kills apiserver-2 (held down so the
// supervisor leaves it dead) and reads until only apiserver 1 is left,
// which takes the endpoint lease's TTL.
func checkKubernetesEndpoints(t *testing.T, c *framework.LocalCluster) {
	port := c.Server()[strings.LastIndex(c.Server(), ":")+1:]
	both := cluster.APIServerAddress(1) + ":" + port + "," + cluster.APIServerAddress(2) + ":" + port
	endpoints := func() string {
		r := c.Kubectl(t, "", "get", "endpoints", "kubernetes", "--no-headers", "-o", "custom-columns=E:.subsets[*].addresses[*].ip,P:.subsets[*].ports[*].port")
		fields := strings.Fields(r.Stdout)
		if r.Err != nil || len(fields) != 2 {
			return fmt.Sprintf("%v %s %s", r.Err, r.Stdout, r.Stderr)
		}
		var out []string
		for _, ip := range strings.Split(fields[0], ",") {
			out = append(out, ip+":"+fields[1])
		}
		slices.Sort(out)
		return strings.Join(out, ",")
	}
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		got := endpoints()
		return got == both, got
	})
	if err := cluster.HoldDown(c.Dir, cluster.APIServerComponentN(2), time.Now().Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	killByPID(t, c, cluster.APIServerComponentN(2))
	killedAt := time.Now()
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		got := endpoints()
		return got == cluster.APIServerAddress(1)+":"+port, got
	})
	t.Logf("the dead apiserver left the endpoints after %s", time.Since(killedAt).Round(time.Second))

	// With apiserver-2 still dead, everything goes through apiserver 1:
	// the controllers, the scheduler and the kubelet that had connections
	// to apiserver-2 reconnected through the balancer.
	c.MustKubectl(t, "scale", "deployment/ha-web", "--replicas=3")
	c.MustKubectl(t, "rollout", "status", "deployment/ha-web", "--timeout=60s")
}
