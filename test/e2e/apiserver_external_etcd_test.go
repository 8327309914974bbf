package e2e

import (
	"context"
	"testing"
	"time"

	"kplane/pkg/apiserver"
	"kplane/pkg/store"
	"kplane/test/framework"
)

// TestExternalEtcd: with --etcd-servers the apiserver stores into an etcd it
// did not start; a second apiserver on the same etcd serves the same
// objects, including one written into etcd behind both their backs.
func TestExternalEtcd(t *testing.T) {
	t.Parallel()
	etcd, err := store.StartEmbedded(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { etcd.Close() })
	external := func(o *apiserver.Options) { o.EtcdServers = []string{etcd.ClientURL()} }

	first := framework.StartAPIServerWith(t, t.TempDir(), external)
	if first.EtcdClientURL() != "" {
		t.Errorf("an apiserver on external etcd reports an embedded one: %q", first.EtcdClientURL())
	}
	mustOK(t, first.Do(t, "POST", "/api/v1/namespaces/default/configmaps", []byte(`{"metadata":{"name":"via-api"}}`)), 201)
	if _, err := etcd.Store().Create(context.Background(), "/registry/configmaps/default/via-etcd",
		[]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"via-etcd","namespace":"default","uid":"u1"}}`)); err != nil {
		t.Fatal(err)
	}
	second := framework.StartAPIServerWith(t, t.TempDir(), external)
	for _, a := range []*framework.APIServer{first, second} {
		for _, name := range []string{"via-api", "via-etcd"} {
			mustOK(t, a.Do(t, "GET", "/api/v1/namespaces/default/configmaps/"+name, nil), 200)
		}
		framework.Eventually(t, 10*time.Second, func() (bool, string) {
			list := decodeMap(t, mustOK(t, a.Do(t, "GET", "/api/v1/namespaces/default/configmaps", nil), 200))
			return len(list["items"].([]any)) == 2, string(a.Do(t, "GET", "/api/v1/namespaces/default/configmaps", nil).Body)
		})
	}
}
