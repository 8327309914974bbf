package e2e

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/controllerutil"
)

// TestControllersStatefulSetSeed is the seed's StatefulSet lesson
// (examples/ng-headless-svc.yaml and examples/ngix-sts.yaml: ng-headless
// with 2 replicas, a volumeClaimTemplate "vol", governed by the headless
// Service ng-headless-svc), with the seed's volumes (examples/pv.yaml:
// without them the claims stay Pending, and so does ng-headless-0, since
// the scheduler waits for its claim to be bound), as a user sees it with
// kubectl:
//   - pods ng-headless-0 and ng-headless-1 come up Running, -1 only after
//     -0 was Ready (OrderedReady), with hostname = pod name;
//   - `kubectl get pvc` lists vol-ng-headless-0 and vol-ng-headless-1, both
//     Bound (to which volume is TestControllersPersistentVolumeSeed's
//     business);
//   - `kubectl rollout status sts/ng-headless` reports the rollout complete;
//   - `kubectl scale sts --replicas=1` removes ng-headless-1 and keeps both
//     claims.
func TestControllersStatefulSetSeed(t *testing.T) {
	t.Parallel()
	c := startControllersCluster(t, 2)
	const selector = "app=ng-headless"

	c.MustKubectl(t, "apply", "-f", examplePath(t, "pv.yaml"),
		"-f", examplePath(t, "ng-headless-svc.yaml"), "-f", examplePath(t, "ngix-sts.yaml"))
	pods := waitRunningPods(t, c, "default", selector, 2)
	if !slices.Equal(pods, []string{"ng-headless-0", "ng-headless-1"}) {
		t.Fatalf("pods %v, want ng-headless-0 and ng-headless-1", pods)
	}

	// OrderedReady: -1 was created no earlier than -0 became Ready.
	cl := c.Client(t)
	ctx := context.Background()
	p0, err := cl.Pods("default").Get(ctx, "ng-headless-0", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p1, err := cl.Pods("default").Get(ctx, "ng-headless-1", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ready := controllerutil.GetPodReadyCondition(p0); ready == nil || p1.CreationTimestamp.Before(ready.LastTransitionTime.Time) {
		t.Errorf("ng-headless-1 created at %v, before ng-headless-0 was Ready (%+v)", p1.CreationTimestamp, ready)
	}
	for _, p := range []*api.Pod{p0, p1} {
		if p.Spec.Hostname != p.Name || p.Spec.Subdomain != "ng-headless-svc" {
			t.Errorf("%s hostname %q subdomain %q", p.Name, p.Spec.Hostname, p.Spec.Subdomain)
		}
	}

	// The claims, one per pod, named <template>-<set>-<ordinal>.
	pvcRE := regexp.MustCompile(`(?m)^vol-ng-headless-([01])\s+Bound\s`)
	waitKubectl(t, c, controllersTimeout, func(out string) bool { return len(pvcRE.FindAllString(out, -1)) == 2 },
		"get", "pvc", "--no-headers")

	out := c.MustKubectl(t, "rollout", "status", "sts/ng-headless", "--timeout=50s")
	if !strings.Contains(out, "roll out complete") {
		t.Errorf("rollout status printed %q", out)
	}
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return regexp.MustCompile(`(?m)^ng-headless\s+2/2\s`).MatchString(out)
	}, "get", "sts", "ng-headless", "--no-headers")

	// Scale down: ng-headless-1 goes, both claims stay.
	c.MustKubectl(t, "scale", "sts", "ng-headless", "--replicas=1")
	if pods := waitRunningPods(t, c, "default", selector, 1); !slices.Equal(pods, []string{"ng-headless-0"}) {
		t.Errorf("after scaling to 1 the pods are %v", pods)
	}
	if got := pvcRE.FindAllString(c.MustKubectl(t, "get", "pvc", "--no-headers"), -1); len(got) != 2 {
		t.Errorf("claims after scale down %v, want both kept", got)
	}
}
