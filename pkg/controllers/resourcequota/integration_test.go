package resourcequota_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/resourcequota"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 10 * time.Second

// waitUsed waits until quota q in namespace reports want pods used.
func waitUsed(t *testing.T, c *client.Client, namespace string, want int64) {
	t.Helper()
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		q, err := c.ResourceQuotas(namespace).Get(context.Background(), "q", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		used, ok := q.Status.Used["pods"]
		if !ok || used.Value() != want || len(q.Status.Hard) == 0 {
			return false, fmt.Sprintf("status = %+v", q.Status)
		}
		return true, ""
	})
}

func pod(name string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}}}
}

// Against a real apiserver and its quota admission: the controller makes a
// new quota enforced, admission refuses the third pod, and a pod that
// finishes or is deleted gives its share back so that a new one fits.
func TestQuotaIsEnforcedAndReplenished(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "resourcequota-test" })
	controllertest.RunController(t, c, "", 1, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*resourcequota.Controller, error) {
		return resourcequota.New(c, f, rec, resourcequota.Options{Logger: logger})
	})
	ctx := context.Background()
	const ns = "team-a"
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ResourceQuotas(ns).Create(ctx, &api.ResourceQuota{ObjectMeta: api.ObjectMeta{Name: "q"},
		Spec: api.ResourceQuotaSpec{Hard: api.ResourceList{"pods": api.MustParseQuantity("2")}}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUsed(t, c, ns, 0)

	pods := c.Pods(ns)
	// Admission reads the quota from its watch cache first; the cache may
	// lag the controller's status write by a moment.
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		if _, err := pods.Create(ctx, pod("a"), client.CreateOptions{}); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	if _, err := pods.Create(ctx, pod("b"), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := pods.Create(ctx, pod("c"), client.CreateOptions{})
	if want := `pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`; err == nil || err.Error() != want {
		t.Fatalf("third pod: err = %v, want %q", err, want)
	}

	// A pod that finished no longer counts.
	finished, err := pods.Get(ctx, "a", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	finished.Status.Phase = api.PodSucceeded
	if _, err := pods.UpdateStatus(ctx, finished, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUsed(t, c, ns, 1)
	if _, err := pods.Create(ctx, pod("c"), client.CreateOptions{}); err != nil {
		t.Fatalf("after a pod finished: %v", err)
	}

	// A deleted pod gives its share back.
	if err := pods.Delete(ctx, "b", client.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	waitUsed(t, c, ns, 1)
}
