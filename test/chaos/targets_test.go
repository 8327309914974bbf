package chaos

import (
	"reflect"
	"testing"
	"time"

	"kplane/pkg/cluster"
)

// haState is cluster.json of an HA cluster whose components all started
// at started.
func haState(started time.Time) *cluster.State {
	s := &cluster.State{Components: map[string]cluster.ProcessRecord{}}
	for i, name := range []string{"apiserver", "apiserver-2", "etcd-1", "etcd-2", "etcd-3", "loadbalancer", "controller-manager",
		"controller-manager-2", "scheduler", "kubelet-control-plane", "kubelet-node1", "dns", "kube-proxy-node1", "metrics-server"} {
		s.Components[name] = cluster.ProcessRecord{PID: 100 + i, StartedAt: started}
	}
	return s
}

func everyoneRuns(cluster.ProcessRecord) bool { return true }

func TestTargetsPicksEtcdApiserversLeadersAndKubeletsNeverTheBalancer(t *testing.T) {
	now := time.Now()
	got := Targets(haState(now.Add(-time.Minute)), map[string]string{KindControllerManager: "controller-manager-2", KindScheduler: "scheduler"}, everyoneRuns, now)
	want := []Target{
		{KindAPIServer, "apiserver"}, {KindAPIServer, "apiserver-2"},
		{KindControllerManager, "controller-manager-2"},
		{KindEtcd, "etcd-1"}, {KindEtcd, "etcd-2"}, {KindEtcd, "etcd-3"},
		{KindKubelet, "kubelet-control-plane"}, {KindKubelet, "kubelet-node1"},
		{KindScheduler, "scheduler"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Targets =\n %v\nwant\n %v", got, want)
	}
}

func TestTargetsWithoutAKnownLeaderSparesControllerManagersAndSchedulers(t *testing.T) {
	now := time.Now()
	for _, target := range Targets(haState(now.Add(-time.Minute)), nil, everyoneRuns, now) {
		if target.Kind == KindControllerManager || target.Kind == KindScheduler {
			t.Errorf("%s is a target though no leader is known (a killed leader's Lease has not expired yet)", target.Component)
		}
	}
}

func TestTargetsNoneWhileAComponentIsDown(t *testing.T) {
	now := time.Now()
	etcd2Down := func(r cluster.ProcessRecord) bool { return r.PID != 103 } // etcd-2
	if got := Targets(haState(now.Add(-time.Minute)), nil, etcd2Down, now); len(got) != 0 {
		t.Errorf("with etcd-2 down, a second kill could cost the quorum; Targets = %v", got)
	}
	// A component the killer never touches may be down without stopping it.
	metricsDown := func(r cluster.ProcessRecord) bool { return r.PID != 113 }
	if got := Targets(haState(now.Add(-time.Minute)), nil, metricsDown, now); len(got) == 0 {
		t.Errorf("metrics-server down stopped every kill")
	}
}

func TestTargetsSparesComponentsRestartedWithinMinUptime(t *testing.T) {
	now := time.Now()
	s := haState(now.Add(-time.Minute))
	rec := s.Components["apiserver"]
	rec.StartedAt = now.Add(-minUptime + time.Second)
	s.Components["apiserver"] = rec
	for _, target := range Targets(s, nil, everyoneRuns, now) {
		if target.Component == "apiserver" {
			t.Errorf("apiserver restarted %s ago is a target; the supervisor would count a kill now as a quick crash", minUptime-time.Second)
		}
	}
}

func TestChooseDrawsTheKindFirst(t *testing.T) {
	targets := []Target{{KindKubelet, "kubelet-node1"}, {KindKubelet, "kubelet-node2"}, {KindKubelet, "kubelet-node3"}, {KindScheduler, "scheduler"}}
	// Kinds sorted: kubelet, scheduler. intn returning n-1 takes the last
	// kind, then its last target.
	got, ok := Choose(targets, func(n int) int { return n - 1 })
	if !ok || got.Component != "scheduler" {
		t.Errorf("Choose = %v, %v; want the scheduler, one kind of two", got, ok)
	}
	if _, ok := Choose(nil, func(int) int { return 0 }); ok {
		t.Errorf("Choose(nil) found a target")
	}
}
