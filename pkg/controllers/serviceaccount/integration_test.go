package serviceaccount_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/serviceaccount"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 10 * time.Second

// startController runs the controller in-process against a, with one
// worker so that keys are synced in the order they were enqueued.
func startController(t *testing.T, a *framework.APIServer) *client.Client {
	t.Helper()
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "serviceaccount-test" })
	controllertest.RunController(t, c, "", 1, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*serviceaccount.Controller, error) {
		return serviceaccount.New(c, f, rec, serviceaccount.Options{Logger: logger})
	})
	return c
}

// waitDefaultSA waits until namespace has a "default" ServiceAccount whose
// UID is not notUID, and returns it.
func waitDefaultSA(t *testing.T, c *client.Client, namespace, notUID string) *api.ServiceAccount {
	t.Helper()
	var sa *api.ServiceAccount
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		got, err := c.ServiceAccounts(namespace).Get(context.Background(), "default", client.GetOptions{})
		if err != nil {
			return false, fmt.Sprintf("get %s/default: %v", namespace, err)
		}
		if got.UID == notUID {
			return false, fmt.Sprintf("%s/default is still the old one (uid %s)", namespace, got.UID)
		}
		sa = got
		return true, ""
	})
	return sa
}

// A new namespace gets a default ServiceAccount, and a deleted one comes
// back; the system namespaces the apiserver creates at first start get
// theirs too.
func TestDefaultServiceAccountIsEnsured(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := startController(t, a)
	ctx := context.Background()

	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		waitDefaultSA(t, c, ns, "")
	}

	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	first := waitDefaultSA(t, c, "team-a", "")

	if err := c.ServiceAccounts("team-a").Delete(ctx, "default", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	second := waitDefaultSA(t, c, "team-a", first.UID)
	if second.UID == first.UID || second.UID == "" {
		t.Fatalf("recreated default has uid %q, want a new one (old %q)", second.UID, first.UID)
	}
}

// A namespace being deleted gets no account back: the namespace controller
// is emptying it and admission would refuse the create.
func TestTerminatingNamespaceIsLeftAlone(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := startController(t, a)
	ctx := context.Background()
	for _, name := range []string{"doomed", "alive"} {
		if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitDefaultSA(t, c, "doomed", "")
	alive := waitDefaultSA(t, c, "alive", "")

	// No namespace controller runs here, so "doomed" stays Terminating
	// (its `kubernetes` finalizer is never removed) with its account in it.
	if err := c.Namespaces().Delete(ctx, "doomed", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		ns, err := c.Namespaces().Get(ctx, "doomed", client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return ns.Status.Phase == api.NamespaceTerminating, "phase " + string(ns.Status.Phase)
	})
	if err := c.ServiceAccounts("doomed").Delete(ctx, "default", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// With one worker the queue is FIFO: once "alive" (enqueued after
	// "doomed") has its account back, "doomed" has been synced.
	if err := c.ServiceAccounts("alive").Delete(ctx, "default", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitDefaultSA(t, c, "alive", alive.UID)
	if sa, err := c.ServiceAccounts("doomed").Get(ctx, "default", client.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get doomed/default = %+v, %v; want NotFound in a terminating namespace", sa, err)
	}
}
