package e2e

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// loadBalancerCleanupFinalizer is the finalizer upstream's service
// controller puts on a LoadBalancer Service before it creates the load
// balancer, so that the Service cannot go before the load balancer has.
const loadBalancerCleanupFinalizer = "service.kubernetes.io/load-balancer-cleanup"

// TestServicesLoadBalancer is issue 14's fourth "Done when": `kubectl
// expose deploy web --type LoadBalancer --port 80` gets an EXTERNAL-IP from
// the simulated cloud (the cloud-controller-manager's service controller
// sets status.loadBalancer.ingress, holding the cleanup finalizer);
// `kubectl describe svc web` shows the controller's events; and deleting
// the Service releases the address: the controller deletes the load
// balancer, says so in events, and removes the finalizer, so the Service
// goes and `ctl cloud load-balancers` no longer lists the address.
func TestServicesLoadBalancer(t *testing.T) {
	t.Parallel()
	c := svcsStartCluster(t, svcsCloud)
	cl := c.Client(t)
	c.MustKubectl(t, "create", "deployment", "web", "--image=nginx:1.27.0", "--replicas=3", "--port=80")
	if out := c.MustKubectl(t, "expose", "deploy", "web", "--type", "LoadBalancer", "--port", "80"); strings.TrimSpace(out) != "service/web exposed" {
		t.Errorf("kubectl expose printed %q, want service/web exposed", out)
	}

	// NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE: <pending> until the
	// service controller has made the load balancer.
	var externalIP string
	waitKubectl(t, c, controllersTimeout, func(out string) bool {
		f := strings.Fields(out)
		if len(f) < 5 || f[0] != "web" || f[1] != "LoadBalancer" || net.ParseIP(f[3]) == nil {
			return false
		}
		externalIP = f[3]
		return true
	}, "get", "svc", "web", "--no-headers")
	svc, err := cl.Services("default").Get(context.Background(), "web", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ing := svc.Status.LoadBalancer.Ingress; len(ing) != 1 || ing[0].IP != externalIP {
		t.Errorf("status.loadBalancer.ingress = %+v, want the one address kubectl shows, %s", ing, externalIP)
	}
	if !slices.Contains(svc.Finalizers, loadBalancerCleanupFinalizer) {
		t.Errorf("the LoadBalancer Service's finalizers are %v, want %s", svc.Finalizers, loadBalancerCleanupFinalizer)
	}
	if code, out := svcsCtl(t, c, "cloud", "load-balancers"); code != 0 || !strings.Contains(out, externalIP) {
		t.Errorf("ctl cloud load-balancers (exit %d) does not list %s:\n%s", code, externalIP, out)
	}

	describe := waitKubectl(t, c, controllersTimeout, func(out string) bool {
		return svcsHasEvent(out, "EnsuringLoadBalancer") && svcsHasEvent(out, "EnsuredLoadBalancer")
	}, "describe", "svc", "web")
	if !strings.Contains(describe, "LoadBalancer Ingress:") || !strings.Contains(describe, externalIP) {
		t.Errorf("kubectl describe svc web does not show LoadBalancer Ingress %s:\n%s", externalIP, describe)
	}

	// kubectl delete waits until the Service is gone, which it is only once
	// the service controller has deleted the load balancer and removed its
	// finalizer.
	c.MustKubectl(t, "delete", "svc", "web", "--timeout=60s")
	if _, err := cl.Services("default").Get(context.Background(), "web", client.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after kubectl delete svc web: get = %v, want NotFound", err)
	}
	framework.Eventually(t, controllersTimeout, func() (bool, string) {
		list, err := cl.Events("default").List(context.Background(), client.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		var reasons []string
		for _, e := range list.Items {
			if e.InvolvedObject.Kind == "Service" && e.InvolvedObject.Name == "web" {
				reasons = append(reasons, e.Reason)
			}
		}
		return slices.Contains(reasons, "DeletingLoadBalancer") && slices.Contains(reasons, "DeletedLoadBalancer"),
			fmt.Sprintf("want DeletingLoadBalancer and DeletedLoadBalancer among the Service's events: %v", reasons)
	})
	if code, out := svcsCtl(t, c, "cloud", "load-balancers"); code != 0 || strings.Contains(out, externalIP) {
		t.Errorf("ctl cloud load-balancers (exit %d) still lists %s after the Service was deleted:\n%s", code, externalIP, out)
	}
}

// svcsHasEvent reports whether describe output's Events table has a row
// with this reason (Type Reason Age From Message).
func svcsHasEvent(describe, reason string) bool {
	_, events, ok := strings.Cut(describe, "\nEvents:")
	if !ok {
		return false
	}
	for _, line := range strings.Split(events, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[1] == reason {
			return true
		}
	}
	return false
}
