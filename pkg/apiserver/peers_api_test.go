package apiserver_test

import (
	"context"
	"fmt"
	"net"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// Tests of several apiservers on one etcd, as `ctl up --apiservers 2` runs
// them: apiserver N on 127.0.0.(N+1), all on one port.

// freeSharedPort returns a port free on loopback for the peers to share.
func freeSharedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// peerOptions configures apiserver n (1-based) of a test's peers.
func peerOptions(n, port int) func(*apiserver.Options) {
	return func(o *apiserver.Options) {
		o.BindAddress = fmt.Sprintf("127.0.0.%d", n+1)
		o.SecurePort = port
		o.EndpointReconcilerTTL = 2 * time.Second
		o.EndpointReconcilerInterval = 100 * time.Millisecond
	}
}

// startPeers starts two apiservers on the first one's etcd.
func startPeers(t *testing.T) (first, second *framework.APIServer, port int) {
	t.Helper()
	port = freeSharedPort(t)
	first = framework.StartAPIServerWith(t, t.TempDir(), peerOptions(1, port))
	second = framework.StartPeerAPIServer(t, first, peerOptions(2, port))
	return first, second, port
}

// TestPeersHandOutEveryClusterIPAndNodePortOnce: 500 Services created at
// once, half through each apiserver, some asking for the same ClusterIP or
// node port as another: every value is held by one Service only, and the
// loser of each pair gets upstream's 422. After both apiservers restart,
// the allocations are still taken.
func TestPeersHandOutEveryClusterIPAndNodePortOnce(t *testing.T) {
	first, second, port := startPeers(t)
	clients := []*client.Client{first.Client(t, nil), second.Client(t, nil)}
	ctx := context.Background()

	const services = 500
	// Every 10th Service asks for one of 25 addresses, every 10th (offset
	// 5) for one of 25 node ports: each value is asked for twice. They lie
	// in the static bands random picks leave alone, so exactly one of each
	// pair must be refused.
	requestedIP := func(i int) string {
		if i%10 != 0 {
			return ""
		}
		return fmt.Sprintf("10.96.0.%d", 10+(i/10)%25)
	}
	requestedPort := func(i int) int32 {
		if i%10 != 5 {
			return 0
		}
		return int32(30010 + (i/10)%25)
	}
	type result struct {
		svc *api.Service
		err error
	}
	results := make([]result, services)
	var wg sync.WaitGroup
	gate := make(chan struct{}, 40)
	for i := 0; i < services; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			gate <- struct{}{}
			defer func() { <-gate }()
			svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("s%03d", i)}, Spec: api.ServiceSpec{
				Type: api.ServiceTypeNodePort, ClusterIP: requestedIP(i),
				Ports: []api.ServicePort{{Name: "a", Port: 80, NodePort: requestedPort(i)}, {Name: "b", Port: 81}}}}
			created, err := clients[i%2].Services("default").Create(ctx, svc, client.CreateOptions{})
			results[i] = result{created, err}
		}(i)
	}
	wg.Wait()

	ips, ports := map[string]string{}, map[int32]string{}
	refusedIP, refusedPort := 0, 0
	for i, r := range results {
		if r.err != nil {
			msg := r.err.Error()
			switch {
			case !apierrors.IsInvalid(r.err):
				t.Errorf("service %d: %v, want a 422 Invalid or success", i, r.err)
			case requestedIP(i) != "" && strings.Contains(msg, "spec.clusterIPs") &&
				strings.Contains(msg, "failed to allocate IP "+requestedIP(i)+": provided IP is already allocated"):
				refusedIP++
			case requestedPort(i) != 0 && strings.Contains(msg, "spec.ports[0].nodePort") && strings.Contains(msg, "provided port is already allocated"):
				refusedPort++
			default:
				t.Errorf("service %d: unexpected refusal %v", i, r.err)
			}
			continue
		}
		if owner, dup := ips[r.svc.Spec.ClusterIP]; dup {
			t.Errorf("ClusterIP %s given to %s and %s", r.svc.Spec.ClusterIP, owner, r.svc.Name)
		}
		ips[r.svc.Spec.ClusterIP] = r.svc.Name
		for _, p := range r.svc.Spec.Ports {
			if owner, dup := ports[p.NodePort]; dup {
				t.Errorf("node port %d given to %s and %s", p.NodePort, owner, r.svc.Name)
			}
			ports[p.NodePort] = r.svc.Name
		}
	}
	if refusedIP != 25 || refusedPort != 25 {
		t.Errorf("refused %d requested addresses and %d requested ports, want 25 and 25 (one of each pair)", refusedIP, refusedPort)
	}
	t.Logf("%d services created, %d distinct ClusterIPs, %d distinct node ports", services-refusedIP-refusedPort, len(ips), len(ports))

	// Restart both: what was allocated stays allocated.
	second.Stop()
	first.Stop()
	first = framework.StartAPIServerWith(t, first.Dir, peerOptions(1, port))
	second = framework.StartPeerAPIServer(t, first, peerOptions(2, port))
	var taken *api.Service // a Service that got the address it asked for
	for i, r := range results {
		if r.err == nil && requestedIP(i) != "" {
			taken = r.svc
			break
		}
	}
	if taken == nil {
		t.Fatal("no Service that asked for an address got it")
	}
	again := &api.Service{ObjectMeta: api.ObjectMeta{Name: "after-restart"}, Spec: api.ServiceSpec{
		Type: api.ServiceTypeNodePort, ClusterIP: taken.Spec.ClusterIP, Ports: []api.ServicePort{{Port: 80}}}}
	if _, err := second.Client(t, nil).Services("default").Create(ctx, again, client.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("after a restart, %s was handed out again: %v", taken.Spec.ClusterIP, err)
	}
	for i := 0; i < 20; i++ {
		svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("late%02d", i)}, Spec: api.ServiceSpec{
			Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80}}}}
		created, err := first.Client(t, nil).Services("default").Create(ctx, svc, client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if owner, dup := ips[created.Spec.ClusterIP]; dup {
			t.Errorf("after a restart, ClusterIP %s of %s given to %s", created.Spec.ClusterIP, owner, created.Name)
		}
		if owner, dup := ports[created.Spec.Ports[0].NodePort]; dup {
			t.Errorf("after a restart, node port %d of %s given to %s", created.Spec.Ports[0].NodePort, owner, created.Name)
		}
	}
}

// endpointAddresses reads the kubernetes Endpoints and EndpointSlice
// through c and describes them.
func endpointAddresses(t *testing.T, c *client.Client) (endpoints, slice []string, ports string) {
	t.Helper()
	ep, err := c.Endpoints("default").Get(context.Background(), "kubernetes", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ep.Subsets {
		for _, a := range s.Addresses {
			endpoints = append(endpoints, a.IP)
		}
		for _, p := range s.Ports {
			ports += fmt.Sprintf("%s/%d/%s ", p.Name, p.Port, p.Protocol)
		}
	}
	es, err := c.EndpointSlices("default").Get(context.Background(), "kubernetes", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es.Endpoints {
		slice = append(slice, e.Addresses...)
	}
	return endpoints, slice, ports
}

// waitForEndpoints waits until both the Endpoints and the EndpointSlice
// list exactly want.
func waitForEndpoints(t *testing.T, c *client.Client, port int, want ...string) {
	t.Helper()
	framework.Eventually(t, 20*time.Second, func() (bool, string) {
		endpoints, slice, ports := endpointAddresses(t, c)
		ok := slices.Equal(endpoints, want) && slices.Equal(slice, want) && ports == fmt.Sprintf("https/%d/TCP ", port)
		return ok, fmt.Sprintf("endpoints %v, slice %v, ports %q; want %v on %d", endpoints, slice, ports, want, port)
	})
}

// TestKubernetesEndpointsListEveryLiveAPIServer: the Endpoints and
// EndpointSlice of the kubernetes Service list both apiservers; a graceful
// stop takes one out; an apiserver that stops renewing (here a lease key
// that is never renewed, as a killed apiserver leaves) drops out when its
// lease expires.
func TestKubernetesEndpointsListEveryLiveAPIServer(t *testing.T) {
	first, second, port := startPeers(t)
	c := first.Client(t, nil)
	waitForEndpoints(t, c, port, "127.0.0.2", "127.0.0.3")

	second.Stop()
	waitForEndpoints(t, c, port, "127.0.0.2")

	// A third apiserver that died without a word: its key, never renewed.
	// Its 5 s TTL leaves the first wait time to see it under -race on a
	// busy machine; the second wait (20 s) covers its expiry.
	if err := apiserver.PutMasterLease(context.Background(), first.Server, "127.0.0.4", 5*time.Second); err != nil {
		t.Fatal(err)
	}
	waitForEndpoints(t, c, port, "127.0.0.2", "127.0.0.4")
	waitForEndpoints(t, c, port, "127.0.0.2")
}

// TestSingleAPIServerEndpointsAreLoopback: one apiserver on the default
// address writes the Endpoints and EndpointSlice kplane always wrote.
func TestSingleAPIServerEndpointsAreLoopback(t *testing.T) {
	a := framework.StartAPIServer(t)
	port := a.URL()[strings.LastIndex(a.URL(), ":")+1:]
	r := a.Do(t, "GET", "/api/v1/namespaces/default/endpoints/kubernetes", nil)
	want := `"subsets":[{"addresses":[{"ip":"127.0.0.1"}],"ports":[{"name":"https","port":` + port + `,"protocol":"TCP"}]}]`
	if r.Code != 200 || !strings.Contains(string(r.Body), want) {
		t.Errorf("endpoints: %d %s\nwant %s", r.Code, r.Body, want)
	}
	es, err := a.Client(t, nil).EndpointSlices("default").Get(context.Background(), "kubernetes", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ready := true
	wantEndpoints := []api.Endpoint{{Addresses: []string{"127.0.0.1"}, Conditions: api.EndpointConditions{Ready: &ready}}}
	if !reflect.DeepEqual(es.Endpoints, wantEndpoints) || len(es.Ports) != 1 || fmt.Sprint(*es.Ports[0].Port) != port {
		t.Errorf("endpointslice: %+v ports %+v", es.Endpoints, es.Ports)
	}
}

// TestNamespaceDeletedThroughOnePeerRefusesCreatesThroughTheOther: right
// after a namespace is marked for deletion through one apiserver, a create
// in it through the other is refused with upstream's 403, however far the
// second's watch cache lags; repeated, so that a lag would show.
func TestNamespaceDeletedThroughOnePeerRefusesCreatesThroughTheOther(t *testing.T) {
	first, second, _ := startPeers(t)
	ctx := context.Background()
	deleter, creator := first.Client(t, nil), second.Client(t, nil)
	for i := 0; i < 20; i++ {
		name := fmt.Sprintf("doomed-%d", i)
		// A finalizer of our own keeps the namespace terminating while the
		// test looks (no namespace controller runs here either).
		ns := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}
		if _, err := deleter.Namespaces().Create(ctx, ns, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		cm := func(n string) *api.ConfigMap {
			return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: n, Namespace: name}}
		}
		// The second apiserver knows the namespace (a create succeeds), so
		// its cache, not a miss, is what admission consults next.
		framework.Eventually(t, 10*time.Second, func() (bool, string) {
			_, err := creator.ConfigMaps(name).Create(ctx, cm("before"), client.CreateOptions{})
			return err == nil || apierrors.IsAlreadyExists(err), fmt.Sprintf("create before the delete: %v", err)
		})
		if err := deleter.Namespaces().Delete(ctx, name, client.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err := creator.ConfigMaps(name).Create(ctx, cm("after"), client.CreateOptions{})
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "because it is being terminated") {
			t.Fatalf("round %d: create through the other apiserver right after the delete: %v, want 403 NamespaceTerminating", i, err)
		}
	}
}

// TestPeersHoldOneIdentityLeaseEach: two apiservers on one host keep two
// identity Leases, not one they fight over.
func TestPeersHoldOneIdentityLeaseEach(t *testing.T) {
	first, _, _ := startPeers(t)
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		leases := identityLeases(t, first.Client(t, nil))
		return len(leases) == 2, fmt.Sprintf("identity leases: %d", len(leases))
	})
}

// An update that removes a Service's last finalizer deletes it; what the
// stored Service held is freed then, even what the update itself dropped
// (here its node port, by turning it into a ClusterIP Service).
func TestServiceDeletedByAnUpdateFreesWhatItHeld(t *testing.T) {
	ctx := context.Background()
	a := framework.StartAPIServer(t)
	svcs := a.Client(t, nil).Services("default")
	svc, err := svcs.Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "held", Finalizers: []string{"example.com/hold"}},
		Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80, NodePort: 30555}}}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := svcs.Delete(ctx, "held", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if svc, err = svcs.Get(ctx, "held", client.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	svc.Finalizers = nil
	svc.Spec.Type = api.ServiceTypeClusterIP
	svc.Spec.Ports[0].NodePort = 0
	svc.Spec.ExternalTrafficPolicy = ""
	if _, err := svcs.Update(ctx, svc, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := svcs.Get(ctx, "held", client.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after its last finalizer went: %v, want NotFound", err)
	}
	again := &api.Service{ObjectMeta: api.ObjectMeta{Name: "again"}, Spec: api.ServiceSpec{ClusterIP: svc.Spec.ClusterIP,
		Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Port: 80, NodePort: 30555}}}}
	if _, err := svcs.Create(ctx, again, client.CreateOptions{}); err != nil {
		t.Errorf("the deleted Service's address and node port are still allocated: %v", err)
	}
}
