package cluster

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/auth"
)

// fakeBinDir creates empty executables with the given names.
func fakeBinDir(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestNodeNames(t *testing.T) {
	tests := []struct {
		n    int
		want []string
	}{
		{0, []string{"control-plane"}},
		{2, []string{"control-plane", "node1", "node2"}},
	}
	for _, tt := range tests {
		if got := NodeNames(tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("NodeNames(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
}

// debugFlags are the debug flags every component gets: the journal's
// size, and its endpoint file and name in the cluster.
func debugFlags(component string) string {
	return " --debug-ring-size 500 --debug-endpoint-file /data/debug/" + component + ".json --debug-component-name " + component
}

func TestPlanComponents(t *testing.T) {
	bin := fakeBinDir(t, "apiserver", "scheduler", "kubelet")
	o := Options{DataDir: "/data", BinDir: bin, Nodes: 2, Runtime: RuntimeProcess, Port: 6443, DebugRingSize: 500}
	plan, err := planComponents(o)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]component{}
	var names []string
	for _, c := range plan {
		byName[c.name] = c
		names = append(names, c.name)
	}
	wantNames := []string{"apiserver", "scheduler", "kubelet-control-plane", "kubelet-node1", "kubelet-node2"}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("plan = %v, want %v (no controller-manager without its binary)", names, wantNames)
	}

	tests := []struct {
		component string
		wantArgs  string
		wantUser  string
	}{
		{"apiserver", bin + "/apiserver --data-dir /data --secure-port 6443 --audit-policy-file /data/audit-policy.yaml --audit-log-path /data/logs/audit.log" + debugFlags("apiserver"), ""},
		{"scheduler", bin + "/scheduler --kubeconfig /data/kubeconfigs/scheduler.kubeconfig --leader-elect" + debugFlags("scheduler") +
			" --bind-address 127.0.0.1:0", auth.SchedulerUserName},
		{"kubelet-control-plane", bin + "/kubelet --kubeconfig /data/kubeconfigs/kubelet-control-plane.kubeconfig --node-name control-plane --runtime process --pod-cidr 10.244.0.0/24 --cluster-dns 10.96.0.10 --cluster-domain cluster.local --network-kubeconfig /data/kubeconfigs/simulated-network.kubeconfig" +
			" --register-with-taints node-role.kubernetes.io/control-plane=:NoSchedule --node-labels node.kubernetes.io/exclude-from-external-load-balancers=" +
			debugFlags("kubelet-control-plane") + " --debug-address 127.0.0.1:0", "system:node:control-plane"},
		{"kubelet-node2", bin + "/kubelet --kubeconfig /data/kubeconfigs/kubelet-node2.kubeconfig --node-name node2 --runtime process --pod-cidr 10.244.2.0/24 --cluster-dns 10.96.0.10 --cluster-domain cluster.local --network-kubeconfig /data/kubeconfigs/simulated-network.kubeconfig" +
			debugFlags("kubelet-node2") + " --debug-address 127.0.0.1:0", "system:node:node2"},
	}
	for _, tt := range tests {
		c := byName[tt.component]
		if got := strings.Join(c.args, " "); got != tt.wantArgs {
			t.Errorf("%s args:\n got %s\nwant %s", tt.component, got, tt.wantArgs)
		}
		if c.user.Name != tt.wantUser {
			t.Errorf("%s user = %q, want %q", tt.component, c.user.Name, tt.wantUser)
		}
	}
	if c := byName["kubelet-node1"]; !slices.Equal(c.user.Groups, []string{auth.NodesGroup}) {
		t.Errorf("node user groups = %v, want [system:nodes]", c.user.Groups)
	}
}

func TestPlanComponentsControllerManagerWhenBuilt(t *testing.T) {
	bin := fakeBinDir(t, "apiserver", "scheduler", "kubelet", "controller-manager")
	plan, err := planComponents(Options{DataDir: "/data", BinDir: bin, Runtime: RuntimeSimulated})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 4 || plan[2].name != ControllerManagerComponent || plan[2].user.Name != auth.ControllerManagerUserName {
		t.Fatalf("plan = %+v, want apiserver, scheduler, controller-manager, kubelet-control-plane", plan)
	}
	if got := strings.Join(plan[2].args[1:], " "); got != "--kubeconfig /data/kubeconfigs/controller-manager.kubeconfig --leader-elect --bind-address 127.0.0.1:0"+
		" --controllers *,hostpath-provisioner,bootstrapsigner,tokencleaner --hostpath-volumes-dir /data/volumes --service-account-private-key-file /data/pki/sa.key"+
		" --cluster-signing-cert-file /data/pki/ca.crt --cluster-signing-key-file /data/pki/ca.key --use-service-account-credentials"+
		" --debug-ring-size 0 --debug-endpoint-file /data/debug/controller-manager.json --debug-component-name controller-manager" {
		t.Errorf("controller-manager args = %s", got)
	}
}

func TestPlanComponentsOnTheVirtualClock(t *testing.T) {
	bin := fakeBinDir(t, "apiserver", "scheduler", "kubelet", "controller-manager")
	plan, err := planComponents(Options{DataDir: "/data", BinDir: bin, Nodes: 1, Runtime: RuntimeSimulated, VirtualClock: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 5 {
		t.Fatalf("plan = %+v, want apiserver, scheduler, controller-manager and two kubelets", plan)
	}
	for _, c := range plan {
		if !slices.Contains(c.args, "--virtual-clock") {
			t.Errorf("%s runs without --virtual-clock: %v", c.name, c.args)
		}
	}
}

func TestPlanComponentsTwoControllerManagers(t *testing.T) {
	bin := fakeBinDir(t, "apiserver", "scheduler", "kubelet", "controller-manager")
	plan, err := planComponents(Options{DataDir: "/data", BinDir: bin, Runtime: RuntimeSimulated, ControllerManagers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan) != 5 || plan[2].name != "controller-manager" || plan[3].name != "controller-manager-2" {
		t.Fatalf("plan = %+v, want apiserver, scheduler, controller-manager, controller-manager-2, kubelet-control-plane", plan)
	}
	second := plan[3]
	if second.user.Name != auth.ControllerManagerUserName || second.role != roleController {
		t.Errorf("controller-manager-2 runs as %q (role %v), want the controller-manager's user, a controller", second.user.Name, second.role)
	}
	// Its own kubeconfig and debug endpoint file, and a candidate for the
	// same Lease as the first.
	if got := strings.Join(second.args[1:], " "); got != "--kubeconfig /data/kubeconfigs/controller-manager-2.kubeconfig --leader-elect --bind-address 127.0.0.1:0"+
		" --controllers *,hostpath-provisioner,bootstrapsigner,tokencleaner --hostpath-volumes-dir /data/volumes --service-account-private-key-file /data/pki/sa.key"+
		" --cluster-signing-cert-file /data/pki/ca.crt --cluster-signing-key-file /data/pki/ca.key --use-service-account-credentials"+
		" --debug-ring-size 0 --debug-endpoint-file /data/debug/controller-manager-2.json --debug-component-name controller-manager-2" {
		t.Errorf("controller-manager-2 args = %s", got)
	}
	if err := (Options{DataDir: "/data", ControllerManagers: 4}).Validate(); err == nil || !strings.Contains(err.Error(), "--controller-managers 4 out of range 1..3") {
		t.Errorf("4 controller-managers: err %v", err)
	}
}

func TestPlanComponentsNeedsTheBinaries(t *testing.T) {
	bin := fakeBinDir(t, "apiserver", "scheduler")
	_, err := planComponents(Options{DataDir: "/data", BinDir: bin, Runtime: RuntimeSimulated})
	if err == nil || !strings.Contains(err.Error(), "kubelet not found in "+bin) {
		t.Errorf("err = %v, want kubelet not found", err)
	}
}

func TestTokensAndKubeconfigs(t *testing.T) {
	dir := t.TempDir()
	l := layout{dir}
	bin := fakeBinDir(t, "apiserver", "scheduler", "kubelet")
	plan, err := planComponents(Options{DataDir: dir, BinDir: bin, Nodes: 1, Runtime: RuntimeSimulated})
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := prepareTokens(l, plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeKubeconfigs(l, plan, tokens, "https://127.0.0.1:1234", []byte("ca")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"scheduler", "kubelet-control-plane", "kubelet-node1", "simulated-network"} {
		server, ca, err := readAdminKubeconfig(l.kubeconfig(name))
		if err != nil || server != "https://127.0.0.1:1234" || string(ca) != "ca" {
			t.Errorf("%s kubeconfig: server %q ca %q err %v", name, server, ca, err)
		}
	}
	if _, err := os.Stat(l.kubeconfig("apiserver")); !os.IsNotExist(err) {
		t.Errorf("the apiserver got a kubeconfig: %v", err)
	}
	// The token file the apiserver will read names every node, and a
	// second run keeps the same tokens.
	node1, ok := tokens.TokenFor("system:node:node1")
	if !ok {
		t.Fatal("no token for node1")
	}
	again, err := prepareTokens(l, plan)
	if err != nil {
		t.Fatal(err)
	}
	if tok, _ := again.TokenFor("system:node:node1"); tok != node1 {
		t.Error("a second prepareTokens changed node1's token")
	}
}

// A data dir from before the simulated network had its own RBAC role
// lists it in system:masters; the next Up takes the group away and keeps
// its token, so the written kubeconfig still works.
func TestSimulatedNetworkLosesMasters(t *testing.T) {
	dir := t.TempDir()
	l := layout{dir}
	bin := fakeBinDir(t, "apiserver", "scheduler", "kubelet")
	plan, err := planComponents(Options{DataDir: dir, BinDir: bin, Nodes: 1, Runtime: RuntimeSimulated})
	if err != nil {
		t.Fatal(err)
	}
	old, err := auth.EnsureTokens(l.pkiDir())
	if err != nil {
		t.Fatal(err)
	}
	token, err := old.EnsureUser(auth.User{Name: auth.SimulatedNetworkUserName, Groups: []string{auth.MastersGroup}})
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := prepareTokens(l, plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, tf := range []*auth.TokenFile{tokens, mustLoadTokens(t, l)} {
		u, ok := tf.Authenticate(token)
		if !ok || u.Name != auth.SimulatedNetworkUserName || slices.Contains(u.Groups, auth.MastersGroup) {
			t.Errorf("the simulated network's old token authenticates as %+v (ok %v); want %s without %s", u, ok, auth.SimulatedNetworkUserName, auth.MastersGroup)
		}
	}
}

func mustLoadTokens(t *testing.T, l layout) *auth.TokenFile {
	t.Helper()
	tf, err := auth.EnsureTokens(l.pkiDir())
	if err != nil {
		t.Fatal(err)
	}
	return tf
}
