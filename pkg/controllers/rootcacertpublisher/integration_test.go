package rootcacertpublisher_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/controllers/rootcacertpublisher"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 10 * time.Second

// waitRootCA waits until namespace holds kube-root-ca.crt with the
// apiserver's CA and a UID other than notUID, and returns it.
func waitRootCA(t *testing.T, c *client.Client, namespace, wantCA, notUID string) *api.ConfigMap {
	t.Helper()
	var cm *api.ConfigMap
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		got, err := c.ConfigMaps(namespace).Get(context.Background(), api.RootCAConfigMapName, client.GetOptions{})
		switch {
		case err != nil:
			return false, fmt.Sprintf("get %s/%s: %v", namespace, api.RootCAConfigMapName, err)
		case got.UID == notUID:
			return false, "still the deleted one"
		case got.Data[api.RootCAConfigMapKey] != wantCA:
			return false, fmt.Sprintf("ca.crt = %q", got.Data[api.RootCAConfigMapKey])
		}
		cm = got
		return true, ""
	})
	return cm
}

// Against a real apiserver: the system namespaces and a new one get the
// apiserver's CA; a deleted ConfigMap comes back, a changed one is fixed.
func TestRootCAIsPublished(t *testing.T) {
	a := framework.StartAPIServer(t)
	ca := string(a.CACertPEM())
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "root-ca-cert-publisher-test" })
	controllertest.RunController(t, c, "", 1, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*rootcacertpublisher.Controller, error) {
		return rootcacertpublisher.New(c, f, rec, rootcacertpublisher.Options{Logger: logger, RootCA: []byte(ca)})
	})
	ctx := context.Background()
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		waitRootCA(t, c, ns, ca, "")
	}
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team-a"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := waitRootCA(t, c, "team-a", ca, "")

	if err := c.ConfigMaps("team-a").Delete(ctx, api.RootCAConfigMapName, client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	cm = waitRootCA(t, c, "team-a", ca, string(cm.UID))

	cm.Data[api.RootCAConfigMapKey] = "forged"
	if _, err := c.ConfigMaps("team-a").Update(ctx, cm, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRootCA(t, c, "team-a", ca, "")
}
