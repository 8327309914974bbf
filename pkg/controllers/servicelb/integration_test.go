package servicelb_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/cloudprovider/simulated"
	"kplane/pkg/controllers/servicelb"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 10 * time.Second

// Against a real apiserver: the finalizer and status patches are accepted,
// the deleted Service waits for the cleanup and then goes, and the address
// returns to the pool.
func TestLoadBalancerLifeAgainstAnAPIServer(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "servicelb-test" })
	cloud, err := simulated.New("198.51.100.0/24")
	if err != nil {
		t.Fatal(err)
	}
	controllertest.RunController(t, c, servicelb.EventSource, 1, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*servicelb.Controller, error) {
		return servicelb.New(c, f, rec, cloud, servicelb.Options{Logger: logger})
	})
	ctx := context.Background()
	if _, err := c.Services("default").Create(ctx, &api.Service{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ServiceSpec{Type: api.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{{Port: 80, Protocol: api.ProtocolTCP}}},
	}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		svc, err := c.Services("default").Get(ctx, "web", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		ingress := svc.Status.LoadBalancer.Ingress
		return len(ingress) == 1 && ingress[0].IP == "198.51.100.1" && len(svc.Finalizers) == 1,
			fmt.Sprintf("finalizers %v, ingress %+v", svc.Finalizers, ingress)
	})
	controllertest.WaitForEvent(t, c, waitTimeout, controllertest.EventMatch{Namespace: "default", Component: "service-controller", Kind: "Service", Name: "web", Reason: "EnsuredLoadBalancer"})

	if err := c.Services("default").Delete(ctx, "web", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		_, err := c.Services("default").Get(ctx, "web", client.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprintf("get web: %v", err)
	})
	if lbs := cloud.LoadBalancerViews(); len(lbs) != 0 {
		t.Fatalf("load balancers after the delete: %+v", lbs)
	}
}
