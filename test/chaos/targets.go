package chaos

import (
	"slices"
	"strings"
	"time"

	"kplane/pkg/cluster"
)

// The kinds of component the killer chooses among. A kind is chosen first,
// then one component of it, so that the kubelets of a cluster are not
// several times as likely to die as its one scheduler.
const (
	KindAPIServer         = "apiserver"
	KindEtcd              = "etcd"
	KindControllerManager = "controller-manager leader"
	KindScheduler         = "scheduler"
	KindKubelet           = "kubelet"
)

// The Leases whose holders the killer aims at (the same ones `ctl fault
// kill` reads).
const (
	controllerManagerLease = "kube-system/kube-controller-manager"
	schedulerLease         = "kube-system/kube-scheduler"
)

// minUptime is how long a component must have run before it may be killed
// again: longer than the supervisor's quick-crash window (10 s, see
// pkg/cluster/supervise.go), because five runs shorter than that in a row
// make it give the component up — which would test the supervisor's
// patience, not the cluster's recovery.
const minUptime = 12 * time.Second

// Target is one component the killer may kill now.
type Target struct {
	Kind, Component string
}

// kindOf names the kind of a component in cluster.json, or "" for those
// never killed: the load balancer (every kubeconfig points at it, so it is
// the one address that must not go away), DNS, kube-proxy, metrics-server
// and the cloud-controller-manager (none of which the rollouts depend on).
// Controller-managers and schedulers are targets only as the leader, which
// Targets decides.
func kindOf(component string) string {
	switch {
	case cluster.IsAPIServerComponent(component):
		return KindAPIServer
	case cluster.IsEtcdComponent(component):
		return KindEtcd
	case component == cluster.ControllerManagerComponent || strings.HasPrefix(component, cluster.ControllerManagerComponent+"-"):
		return KindControllerManager
	case component == cluster.SchedulerComponent || strings.HasPrefix(component, cluster.SchedulerComponent+"-"):
		return KindScheduler
	case strings.HasPrefix(component, "kubelet-"):
		return KindKubelet
	}
	return ""
}

// Targets lists the components that may be killed now, given the cluster's
// state, the leaders (components holding the controller-manager and
// scheduler Leases, by kind; missing when nobody holds one) and the time.
//
// Nothing is a target while any killable component is down: one death at
// a time keeps an etcd quorum (two of three) and leaves one apiserver up,
// so the cluster is degraded, never dead — that is the failure an HA
// control plane promises to ride out. A component that started less than
// minUptime ago is not a target either.
func Targets(state *cluster.State, leaders map[string]string, running func(cluster.ProcessRecord) bool, now time.Time) []Target {
	var targets []Target
	for name, rec := range state.Components {
		kind := kindOf(name)
		if kind == "" {
			continue
		}
		if !running(rec) {
			return nil
		}
		if now.Sub(rec.StartedAt) < minUptime {
			continue
		}
		if kind == KindControllerManager || kind == KindScheduler {
			// The leader only: killing a standby changes nothing a
			// rollout notices, and while nobody alive holds the Lease
			// (a killed leader's runs 15 s past its last renewal) a
			// second kill would only stretch the outage.
			if leaders[kind] != name {
				continue
			}
		}
		targets = append(targets, Target{Kind: kind, Component: name})
	}
	slices.SortFunc(targets, func(a, b Target) int { return strings.Compare(a.Component, b.Component) })
	return targets
}

// Choose picks a kind uniformly among the targets' kinds, then a target of
// that kind uniformly; intn is rand.IntN. It returns false when there is
// no target.
func Choose(targets []Target, intn func(int) int) (Target, bool) {
	var kinds []string
	byKind := map[string][]Target{}
	for _, t := range targets {
		if len(byKind[t.Kind]) == 0 {
			kinds = append(kinds, t.Kind)
		}
		byKind[t.Kind] = append(byKind[t.Kind], t)
	}
	if len(kinds) == 0 {
		return Target{}, false
	}
	slices.Sort(kinds)
	of := byKind[kinds[intn(len(kinds))]]
	return of[intn(len(of))], true
}
