package e2e

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// endpointsManifest is a Deployment whose pods have a readiness probe (so
// that the simulated runtime's sim.kplane.io/readiness annotation can fail
// it) and a Service selecting them.
const endpointsManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27.0
        ports:
        - containerPort: 80
          name: http
        readinessProbe:
          httpGet: {path: /, port: 80}
          periodSeconds: 1
          failureThreshold: 1
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: 8080
    targetPort: 80
`

// endpointsView is what the Endpoints object of a Service lists.
type endpointsView struct {
	ready, notReady []string // IPs, sorted
	ports           []int32
}

func (v endpointsView) String() string {
	return fmt.Sprintf("ready=%v notReady=%v ports=%v", v.ready, v.notReady, v.ports)
}

func getEndpoints(t *testing.T, cl *client.Client, name string) (endpointsView, error) {
	t.Helper()
	ep, err := cl.Endpoints("default").Get(context.Background(), name, client.GetOptions{})
	if err != nil {
		return endpointsView{}, err
	}
	var v endpointsView
	for _, s := range ep.Subsets {
		for _, a := range s.Addresses {
			v.ready = append(v.ready, a.IP)
		}
		for _, a := range s.NotReadyAddresses {
			v.notReady = append(v.notReady, a.IP)
		}
		for _, p := range s.Ports {
			v.ports = append(v.ports, p.Port)
		}
	}
	sort.Strings(v.ready)
	sort.Strings(v.notReady)
	return v, nil
}

// podIPs returns the IPs of the active pods labelled app=web, sorted.
func podIPs(pods []*api.Pod) []string {
	var ips []string
	for _, p := range pods {
		if p.DeletionTimestamp == nil && p.Status.PodIP != "" {
			ips = append(ips, p.Status.PodIP)
		}
	}
	sort.Strings(ips)
	return ips
}

// waitEndpoints waits until the Service's Endpoints satisfy ok and returns
// what they list.
func waitEndpoints(t *testing.T, cl *client.Client, what string, ok func(endpointsView, []*api.Pod) bool) endpointsView {
	t.Helper()
	var v endpointsView
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		var err error
		if v, err = getEndpoints(t, cl, "web"); err != nil {
			return false, "get endpoints web: " + err.Error()
		}
		pods := listPods(t, cl, "default", "app=web")
		return ok(v, pods), fmt.Sprintf("waiting for %s: endpoints %s; pods:\n%s", what, v, describePods(pods))
	})
	return v
}

// TestControllersEndpointsFollowPods: the Endpoints of a Service list the
// IPs of its ready pods with the target port, as `kubectl get endpoints`
// shows them; scaling changes the count, a deleted pod's IP leaves, and a
// pod whose readiness probe fails moves to notReadyAddresses.
func TestControllersEndpointsFollowPods(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	cl := c.Client(t)
	applyYAML(t, c, endpointsManifest)
	waitRunningPods(t, c, "default", "app=web", 3)

	readyAre := func(n int) func(endpointsView, []*api.Pod) bool {
		return func(v endpointsView, pods []*api.Pod) bool {
			ips := podIPs(pods)
			return len(ips) == n && slices.Equal(v.ready, ips) && len(v.notReady) == 0
		}
	}
	v := waitEndpoints(t, cl, "3 ready addresses", readyAre(3))
	if !slices.Equal(v.ports, []int32{80}) {
		t.Errorf("endpoints ports = %v, want [80] (the service's targetPort)", v.ports)
	}
	out := c.MustKubectl(t, "get", "endpoints", "web", "--no-headers")
	addr := `10\.244\.\d+\.\d+:80`
	if !regexp.MustCompile(`^web\s+` + addr + `,` + addr + `,` + addr + `\s+\S+\s*$`).MatchString(out) {
		t.Errorf("kubectl get endpoints web = %q, want three 10.244.x.y:80 addresses", out)
	}
	for _, ip := range v.ready {
		if !strings.Contains(out, ip+":80") {
			t.Errorf("kubectl get endpoints web does not show %s:80: %q", ip, out)
		}
	}

	// Scale up and down: the addresses follow.
	c.MustKubectl(t, "scale", "deployment", "web", "--replicas=5")
	waitRunningPods(t, c, "default", "app=web", 5)
	waitEndpoints(t, cl, "5 ready addresses", readyAre(5))
	c.MustKubectl(t, "scale", "deployment", "web", "--replicas=2")
	waitRunningPods(t, c, "default", "app=web", 2)
	v = waitEndpoints(t, cl, "2 ready addresses", readyAre(2))

	// Delete a pod: its IP leaves (the replacement gets another address:
	// the kubelet hands a freed IP out last).
	pods := listPods(t, cl, "default", "app=web")
	victim := pods[0]
	c.MustKubectl(t, "delete", "pod", victim.Name, "--wait=false")
	waitEndpoints(t, cl, "the deleted pod's IP "+victim.Status.PodIP+" to leave", func(v endpointsView, pods []*api.Pod) bool {
		return !slices.Contains(v.ready, victim.Status.PodIP) && !slices.Contains(v.notReady, victim.Status.PodIP) &&
			readyAre(2)(v, pods)
	})

	// Fail one pod's readiness probe: it moves to notReadyAddresses.
	var sick *api.Pod
	for _, p := range listPods(t, cl, "default", "app=web") {
		if p.DeletionTimestamp == nil && p.Status.PodIP != "" {
			sick = p
			break
		}
	}
	if sick == nil {
		t.Fatal("no active pod with an IP to make unready")
	}
	c.MustKubectl(t, "annotate", "pod", sick.Name, "sim.kplane.io/readiness=fail", "--overwrite")
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return strings.HasPrefix(podTable(out)[sick.Name], "Running") && strings.Contains(out, "0/1")
	},
		"get", "pod", sick.Name, "--no-headers")
	v = waitEndpoints(t, cl, sick.Name+" ("+sick.Status.PodIP+") in notReadyAddresses", func(v endpointsView, _ []*api.Pod) bool {
		return slices.Equal(v.notReady, []string{sick.Status.PodIP}) && len(v.ready) == 1 && !slices.Contains(v.ready, sick.Status.PodIP)
	})
	t.Logf("endpoints with one unready pod: %s", v)
}
