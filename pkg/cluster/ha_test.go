package cluster

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestValidateHA(t *testing.T) {
	for _, tc := range []struct {
		name    string
		o       Options
		wantErr string
	}{
		{name: "unset", o: Options{}},
		{name: "three members, two apiservers", o: Options{EtcdMembers: 3, APIServers: 2}},
		{name: "builtin balancer", o: Options{APIServers: 2, LoadBalancer: LoadBalancerBuiltin}},
		{name: "even members", o: Options{EtcdMembers: 2}, wantErr: "odd count"},
		{name: "four members", o: Options{EtcdMembers: 4}, wantErr: "a majority of 4 is 3"},
		{name: "too many members", o: Options{EtcdMembers: 9}, wantErr: "out of range"},
		{name: "negative apiservers", o: Options{APIServers: -1}, wantErr: "out of range"},
		{name: "too many apiservers", o: Options{APIServers: MaxAPIServers + 1}, wantErr: "out of range"},
		{name: "unknown balancer", o: Options{LoadBalancer: "nginx"}, wantErr: "--load-balancer"},
	} {
		err := tc.o.validateHA()
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: validateHA() = %v, want %q", tc.name, err, tc.wantErr)
		}
	}
}

func TestResolveHAKeepsTheLayoutAcrossStarts(t *testing.T) {
	dir := t.TempDir()
	if ha, err := resolveHA(Options{DataDir: dir}); err != nil || ha != nil {
		t.Fatalf("no HA asked, none recorded: got %+v, %v; want nil", ha, err)
	}
	first, err := resolveHA(Options{DataDir: dir, EtcdMembers: 3, APIServers: 2, Port: 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.EtcdMembers) != 3 || first.APIServers != 2 || first.Port == 0 {
		t.Fatalf("first start: %+v", first)
	}
	ports := map[int]bool{}
	for _, m := range first.EtcdMembers {
		ports[m.ClientPort], ports[m.PeerPort] = true, true
	}
	if len(ports) != 6 {
		t.Fatalf("members' ports are not distinct: %+v", first.EtcdMembers)
	}

	// A second up without the flags resumes the recorded layout.
	again, err := resolveHA(Options{DataDir: dir, Port: 6443})
	if err != nil {
		t.Fatal(err)
	}
	if again.Port != first.Port || !slices.Equal(again.EtcdMembers, first.EtcdMembers) || again.APIServers != 2 {
		t.Fatalf("resumed layout %+v differs from the first %+v", again, first)
	}
	// Apiservers hold no state: their count may change, and is recorded.
	if more, err := resolveHA(Options{DataDir: dir, APIServers: 3}); err != nil || more.APIServers != 3 {
		t.Fatalf("three apiservers: %+v, %v", more, err)
	}
	if saved, err := readHALayout(filepath.Join(dir, haFileName)); err != nil || saved.APIServers != 3 {
		t.Fatalf("recorded: %+v, %v", saved, err)
	}
	// The member count is part of etcd's data: changing it is refused.
	if _, err := resolveHA(Options{DataDir: dir, EtcdMembers: 5}); err == nil || !strings.Contains(err.Error(), "started with 3 members") {
		t.Fatalf("five members on a three-member data dir: %v", err)
	}
}

func TestResolveHARefusesASingleApiserversDataDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "etcd"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := resolveHA(Options{DataDir: dir, EtcdMembers: 3})
	if err == nil || !strings.Contains(err.Error(), "embedded etcd") {
		t.Fatalf("HA on an embedded etcd's data dir: %v", err)
	}
}

func TestPlanHAControlPlane(t *testing.T) {
	bin := fakeBinDir(t, "apiserver", "scheduler", "kubelet", "etcd", "loadbalancer")
	o := Options{DataDir: "/data", BinDir: bin, Nodes: 0, Runtime: RuntimeSimulated, Port: 6443, DebugRingSize: 500,
		LoadBalancer: LoadBalancerBuiltin, VirtualClock: true,
		ha: &haLayout{Port: 7443, APIServers: 2, ClusterToken: "kplane-data", EtcdMembers: []etcdMember{
			{Name: "etcd-1", ClientPort: 2001, PeerPort: 3001},
			{Name: "etcd-2", ClientPort: 2002, PeerPort: 3002},
			{Name: "etcd-3", ClientPort: 2003, PeerPort: 3003},
		}}}
	plan, err := planComponents(o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	args := map[string]string{}
	for _, c := range plan {
		names = append(names, c.name)
		args[c.name] = strings.Join(c.args[1:], " ")
	}
	want := []string{"etcd-1", "etcd-2", "etcd-3", "loadbalancer", "apiserver", "apiserver-2", "scheduler", "kubelet-control-plane"}
	if !slices.Equal(names, want) {
		t.Fatalf("start order %v, want %v", names, want)
	}
	initial := "--initial-cluster etcd-1=http://127.0.0.1:3001,etcd-2=http://127.0.0.1:3002,etcd-3=http://127.0.0.1:3003"
	if got, want := args["etcd-2"], "--name etcd-2 --data-dir /data/etcd-2 --listen-client-urls http://127.0.0.1:2002 --listen-peer-urls http://127.0.0.1:3002 "+
		initial+" --initial-cluster-token kplane-data"; got != want {
		t.Errorf("etcd-2 args:\n got %s\nwant %s", got, want)
	}
	if got, want := args["loadbalancer"], "--listen 127.0.0.1:7443 --backend 127.0.0.2:7443 --backend 127.0.0.3:7443"; got != want {
		t.Errorf("loadbalancer args:\n got %s\nwant %s", got, want)
	}
	for name, addr := range map[string]string{"apiserver": "127.0.0.2", "apiserver-2": "127.0.0.3"} {
		for _, part := range []string{
			"--secure-port 7443", "--bind-address " + addr + " --advertise-address " + addr,
			"--etcd-servers http://127.0.0.1:2001,http://127.0.0.1:2002,http://127.0.0.1:2003",
			"--kubeconfig-server https://127.0.0.1:7443",
			// The same SANs on every apiserver: none regenerates the
			// certificate another made.
			"--tls-san 127.0.0.1 --tls-san 127.0.0.2 --tls-san 127.0.0.3",
			"--virtual-clock", "--debug-component-name " + name,
		} {
			if !strings.Contains(args[name], part) {
				t.Errorf("%s args lack %q: %s", name, part, args[name])
			}
		}
	}
	if !strings.Contains(args["apiserver-2"], "--audit-log-path /data/logs/audit-apiserver-2.log") {
		t.Errorf("apiserver-2 shares an audit log: %s", args["apiserver-2"])
	}
	// etcd and the balancer are not kplane components: no debug, clock or
	// verbosity flags.
	for _, name := range []string{"etcd-1", "loadbalancer"} {
		if strings.Contains(args[name], "--debug") || strings.Contains(args[name], "--virtual-clock") {
			t.Errorf("%s got kplane's common flags: %s", name, args[name])
		}
	}
}

func TestPlanHAControlPlaneNeedsItsBinaries(t *testing.T) {
	o := Options{DataDir: "/data", Runtime: RuntimeSimulated, LoadBalancer: LoadBalancerBuiltin,
		ha: &haLayout{Port: 7443, APIServers: 2, EtcdMembers: []etcdMember{{Name: "etcd-1", ClientPort: 1, PeerPort: 2}}}}
	o.BinDir = fakeBinDir(t, "apiserver", "scheduler", "kubelet", "loadbalancer")
	if _, err := planComponents(o); err == nil || !strings.Contains(err.Error(), "etcd not found") {
		t.Errorf("without bin/etcd: %v", err)
	}
	o.BinDir = fakeBinDir(t, "apiserver", "scheduler", "kubelet", "etcd")
	if _, err := planComponents(o); err == nil || !strings.Contains(err.Error(), "loadbalancer not found") {
		t.Errorf("without bin/loadbalancer: %v", err)
	}
}

func TestComponentNamesOfTheHALayout(t *testing.T) {
	for name, want := range map[string][2]bool{
		"apiserver": {true, false}, "apiserver-2": {true, false}, "apiserver-x": {false, false},
		"etcd-1": {false, true}, "etcd-": {false, false}, "scheduler": {false, false},
	} {
		if got := [2]bool{IsAPIServerComponent(name), IsEtcdComponent(name)}; got != want {
			t.Errorf("%s: apiserver, etcd = %v, want %v", name, got, want)
		}
	}
	names := []string{"kubelet-node1", "apiserver-2", "scheduler", "loadbalancer", "apiserver", "etcd-2", "etcd-1"}
	slices.SortFunc(names, compareComponents)
	if want := []string{"etcd-1", "etcd-2", "loadbalancer", "apiserver", "apiserver-2", "scheduler", "kubelet-node1"}; !slices.Equal(names, want) {
		t.Errorf("status order %v, want %v", names, want)
	}
	if got := describeLoadBalancer([]string{"/usr/sbin/haproxy", "-db", "-f", "/d/haproxy.cfg"}, "https://127.0.0.1:6443"); got != "haproxy (/d/haproxy.cfg) on 127.0.0.1:6443" {
		t.Errorf("haproxy described as %q", got)
	}
}

func TestChooseLoadBalancer(t *testing.T) {
	bin := fakeBinDir(t, "loadbalancer")
	t.Setenv("PATH", t.TempDir()) // no haproxy
	for _, choice := range []string{"", LoadBalancerAuto, LoadBalancerBuiltin} {
		path, haproxy, err := chooseLoadBalancer(choice, bin)
		if err != nil || haproxy || path != filepath.Join(bin, "loadbalancer") {
			t.Errorf("%q without haproxy: %s, %v, %v; want the built-in", choice, path, haproxy, err)
		}
	}
	if _, _, err := chooseLoadBalancer(LoadBalancerHAProxy, bin); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Errorf("haproxy asked for but missing: %v", err)
	}

	withHAProxy := fakeBinDir(t, "haproxy")
	t.Setenv("PATH", withHAProxy)
	for _, choice := range []string{LoadBalancerAuto, LoadBalancerHAProxy} {
		if path, haproxy, err := chooseLoadBalancer(choice, bin); err != nil || !haproxy || path != filepath.Join(withHAProxy, "haproxy") {
			t.Errorf("%q with haproxy installed: %s, %v, %v; want haproxy", choice, path, haproxy, err)
		}
	}
	if _, haproxy, _ := chooseLoadBalancer(LoadBalancerBuiltin, bin); haproxy {
		t.Error("builtin asked for, haproxy chosen")
	}
}

func TestPlanWritesTheHAProxyConfig(t *testing.T) {
	t.Setenv("PATH", fakeBinDir(t, "haproxy"))
	dir := t.TempDir()
	o := Options{DataDir: dir, BinDir: fakeBinDir(t, "apiserver", "scheduler", "kubelet", "etcd"), Runtime: RuntimeSimulated,
		ha: &haLayout{Port: 7443, APIServers: 2, EtcdMembers: []etcdMember{{Name: "etcd-1", ClientPort: 1, PeerPort: 2}}}}
	plan, err := planComponents(o)
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "haproxy.cfg")
	for _, c := range plan {
		if c.name == LoadBalancerComponent && strings.Join(c.args[1:], " ") != "-db -f "+cfgPath {
			t.Errorf("haproxy args %v", c.args)
		}
	}
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bind 127.0.0.1:7443", "server apiserver-1 127.0.0.2:7443 check check-ssl verify none", "server apiserver-2 127.0.0.3:7443"} {
		if !strings.Contains(string(cfg), want) {
			t.Errorf("haproxy.cfg lacks %q:\n%s", want, cfg)
		}
	}
}

func TestResolveHAOnADataDirNotYetCreated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "cluster")
	ha, err := resolveHA(Options{DataDir: dir, EtcdMembers: 3, APIServers: 2, Port: 0})
	if err != nil {
		t.Fatalf("a first HA start on a data dir that does not exist yet: %v", err)
	}
	if saved, err := readHALayout(filepath.Join(dir, haFileName)); err != nil || saved == nil || len(saved.EtcdMembers) != len(ha.EtcdMembers) {
		t.Fatalf("ha.json after the first start: %+v, %v", saved, err)
	}
}
