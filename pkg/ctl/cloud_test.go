package ctl

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/cloudprovider"
	"kplane/pkg/cloudprovider/simulated"
	"kplane/pkg/debug"
	"kplane/pkg/kubelet"
)

// fakeCloudDebugAPI serves a simulated cloud's debug API as the
// cloud-controller-manager does, beside node1's kubelet pause and resume
// routes, and returns the cloud so a test can fill it.
func fakeCloudDebugAPI(t *testing.T) (*simulated.Cloud, debugAccess, *[]string) {
	t.Helper()
	cloud, err := simulated.New(simulated.DefaultLoadBalancerIPRange)
	if err != nil {
		t.Fatal(err)
	}
	j := debug.NewJournal("cloud-controller-manager", 0, nil)
	cloud.Register(j)
	ccm := httptest.NewServer(j.Handler(nil, false))
	t.Cleanup(ccm.Close)
	calls := &[]string{}
	kj := debug.NewJournal("kubelet-node1", 0, nil)
	for path, paused := range map[string]bool{kubelet.PathPause: true, kubelet.PathResume: false} {
		kj.Handle("POST "+path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			*calls = append(*calls, r.URL.Path)
			_ = json.NewEncoder(w).Encode([]kubelet.HeartbeatState{{Node: r.URL.Query().Get("node"), Paused: paused}})
		}))
	}
	kl := httptest.NewServer(kj.Handler(nil, false))
	t.Cleanup(kl.Close)
	endpoints := []debug.Endpoint{{Component: "cloud-controller-manager", URL: ccm.URL}, {Component: "kubelet-node1", URL: kl.URL}}
	return cloud, func(string) (*debug.Client, []debug.Endpoint, error) { return &debug.Client{}, endpoints, nil }, calls
}

func runCloud(t *testing.T, access debugAccess, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newCloudCommand(IOStreams{Out: &out, ErrOut: &errOut}, access)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

func TestCloudListsLoadBalancersInstancesAndRoutes(t *testing.T) {
	cloud, access, _ := fakeCloudDebugAPI(t)
	ctx := context.Background()
	out, errOut, err := runCloud(t, access, "load-balancers")
	if err != nil || out != "" || errOut != "No load balancers found in the cloud.\n" {
		t.Fatalf("empty cloud: out %q, stderr %q, err %v", out, errOut, err)
	}
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", UID: "0b1c-22"},
		Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80, Protocol: api.ProtocolTCP}}}}
	node1 := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node1"}}
	if _, err := cloud.EnsureLoadBalancer(ctx, "kubernetes", svc, []*api.Node{node1}); err != nil {
		t.Fatal(err)
	}
	_ = cloud.CreateRoute(ctx, "kubernetes", "uid1", &cloudprovider.Route{TargetNode: "node1", DestinationCIDR: "10.244.1.0/24"})
	if _, err := cloud.InstanceMetadata(ctx, node1); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"load-balancers"}, "NAME      SERVICE       ADDRESS        PORTS    NODES\na0b1c22   default/web   198.51.100.1   80/TCP   node1\n"},
		{[]string{"instances"}, "NODE    PROVIDER-ID      TYPE           ZONE             REGION         STATE\nnode1   kplane://node1   kplane.small   kplane-local-b   kplane-local   running\n"},
		{[]string{"routes"}, "DESTINATION CIDR   TARGET NODE   BLACKHOLE   NAME\n10.244.1.0/24      node1         false       kubernetes-uid1\n"},
	} {
		out, _, err := runCloud(t, access, tt.args...)
		if err != nil || out != tt.want {
			t.Errorf("ctl cloud %s:\n%s\nwant\n%s(err %v)", tt.args[0], out, tt.want, err)
		}
	}
	out, _, err = runCloud(t, access, "routes", "-o", "json")
	var routes []simulated.RouteView
	if err != nil || json.Unmarshal([]byte(out), &routes) != nil || len(routes) != 1 || routes[0].TargetNode != "node1" {
		t.Fatalf("routes -o json: %q (%v)", out, err)
	}
}

func TestCloudInstanceShutdownStopsTheKubeletAndStartResumesIt(t *testing.T) {
	cloud, access, calls := fakeCloudDebugAPI(t)
	out, _, err := runCloud(t, access, "instance", "shutdown", "node1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "instance kplane://node1 (kplane-local-b) is shutdown\n") || !strings.Contains(out, "node.cloudprovider.kubernetes.io/shutdown:NoSchedule") {
		t.Errorf("shutdown said:\n%s", out)
	}
	if down, _ := cloud.InstanceShutdown(context.Background(), &api.Node{ObjectMeta: api.ObjectMeta{Name: "node1"}}); !down {
		t.Fatal("the machine is not shut down")
	}
	if _, _, err := runCloud(t, access, "instance", "start", "node1"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(*calls, " ") != kubelet.PathPause+" "+kubelet.PathResume {
		t.Fatalf("kubelet calls %v, want pause then resume", *calls)
	}
	if _, _, err := runCloud(t, access, "instance", "delete", "node1"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCloud(t, access, "instance", "start", "node1"); err == nil || !strings.Contains(err.Error(), "was deleted and cannot be started") {
		t.Fatalf("starting a deleted machine: %v", err)
	}
	if _, _, err := runCloud(t, access, "instance", "reboot", "node1"); err == nil || !strings.Contains(err.Error(), `unknown instance action "reboot"`) {
		t.Fatalf("an unknown action: %v", err)
	}
	if _, _, err := runCloud(t, access, "instance", "shutdown", "node7"); err == nil || !strings.Contains(err.Error(), `no kubelet of node "node7"`) {
		t.Fatalf("an unknown node: %v", err)
	}
	noCloud := func(string) (*debug.Client, []debug.Endpoint, error) {
		return &debug.Client{}, []debug.Endpoint{{Component: "apiserver", URL: "https://127.0.0.1:1"}}, nil
	}
	if _, _, err := runCloud(t, noCloud, "routes"); err == nil || !strings.Contains(err.Error(), `no component "cloud-controller-manager" announced a debug API`) ||
		!strings.Contains(err.Error(), "build bin/cloud-controller-manager") {
		t.Fatalf("a cluster without a cloud: %v", err)
	}
}
