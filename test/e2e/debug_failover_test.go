package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/kubeconfig"
	"kplane/test/framework"
)

// faultDebugClient is a debug API client with the admin's token, trusting
// the cluster CA: what ctl uses, built here as the test's own judge.
func faultDebugClient(t *testing.T, c *framework.LocalCluster) *debug.Client {
	t.Helper()
	kc, err := kubeconfig.Load(c.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	admin, err := kc.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	tlsConfig, err := admin.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	return &debug.Client{HTTP: &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}}, Token: admin.Token}
}

// managerEndpoints returns the announced endpoints of the
// controller-managers, by component name.
func managerEndpoints(t *testing.T, c *framework.LocalCluster) map[string]debug.Endpoint {
	t.Helper()
	endpoints, err := debug.ReadEndpoints(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]debug.Endpoint{}
	for _, ep := range endpoints {
		if strings.HasPrefix(ep.Component, cluster.ControllerManagerComponent) {
			out[ep.Component] = ep
		}
	}
	return out
}

// leaderState reads ep's state in the controller-manager's election.
func leaderState(ctx context.Context, dc *debug.Client, ep debug.Endpoint) (debug.LeaderState, error) {
	var states []debug.LeaderState
	if err := dc.Get(ctx, ep, debug.PathLeader, &states); err != nil {
		return debug.LeaderState{}, err
	}
	for _, s := range states {
		if s.Lease == "kube-system/kube-controller-manager" {
			return s, nil
		}
	}
	return debug.LeaderState{}, fmt.Errorf("%s reports no election of kube-system/kube-controller-manager: %+v", ep.Component, states)
}

// TestFailoverToTheStandbyControllerManager is issue 13's Done-when 6: on
// a cluster with two controller-managers, `ctl fault kill controller-manager
// --signal KILL` kills the leader; the standby's debug API reports it
// leading once the Lease has expired, and its journal shows it syncing a
// Deployment created after the kill.
func TestFailoverToTheStandbyControllerManager(t *testing.T) {
	bin := requireControllerManager(t)
	c := framework.StartCluster(t, func(o *cluster.Options) { o.ControllerManagers = 2 })
	dc := faultDebugClient(t, c)
	ctx := context.Background()

	// Both managers announce themselves; one leads, the other waits.
	var leader, standby debug.Endpoint
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		eps := managerEndpoints(t, c)
		if len(eps) != 2 {
			return false, fmt.Sprintf("controller-manager endpoints: %+v", eps)
		}
		var seen []string
		for _, ep := range eps {
			s, err := leaderState(ctx, dc, ep)
			if err != nil {
				return false, err.Error()
			}
			seen = append(seen, fmt.Sprintf("%s %+v", ep.Component, s))
			if s.IsLeader {
				leader = ep
			} else {
				standby = ep
			}
		}
		return leader.Component != "" && standby.Component != "" && leader.Identity != "" && standby.Identity != "", strings.Join(seen, "; ")
	})

	// The leader stays down for a minute after the kill: the standby takes
	// over alone. (A leader restarted at once would be a third candidate,
	// and upstream's rule that a new candidate waits a full lease duration
	// from its first look makes it lose the race to the standby only most
	// of the time.)
	out := faultCtl(t, bin, c, "fault", "kill", "controller-manager", "--signal", "KILL", "--down-for", "1m")
	want := fmt.Sprintf("fault injected: sent SIGKILL to %s, the leader of the Lease kube-system/kube-controller-manager", leader.Component)
	if !strings.Contains(out, want) || !strings.Contains(out, "a standby takes over only once it\n  expires") {
		t.Errorf("ctl fault kill printed:\n%s\nwant %q and the lease expiry hint", out, want)
	}
	// The real kubectl's `get componentstatuses` probes them now: the
	// killed leader's port refuses, the standby and the scheduler answer.
	r := c.Kubectl(t, "", "get", "componentstatuses")
	if r.Err != nil || !strings.Contains(r.Stderr, "Warning: v1 ComponentStatus is deprecated in v1.19+") {
		t.Errorf("kubectl get componentstatuses: %v\n%s%s", r.Err, r.Stdout, r.Stderr)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n")[1:] {
		name, rest, _ := strings.Cut(line, " ")
		rows[name] = strings.Join(strings.Fields(rest), " ")
	}
	for name, want := range map[string]string{"scheduler": "Healthy ok", standby.Component: "Healthy ok", "etcd-0": "Healthy ok",
		leader.Component: "Unhealthy Get \"" + leader.URL + "/healthz\": dial tcp"} {
		if !strings.HasPrefix(rows[name], want) {
			t.Errorf("kubectl get componentstatuses: %s is %q, want %q…; all:\n%s", name, rows[name], want, r.Stdout)
		}
	}
	if _, err := c.Client(t).Deployments("default").Create(ctx, queuesDeployment("after-kill"), client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		s, err := leaderState(ctx, dc, standby)
		if err != nil {
			return false, err.Error()
		}
		return s.IsLeader && s.Leader == standby.Identity, fmt.Sprintf("%s: %+v", standby.Component, s)
	})
	framework.Eventually(t, 60*time.Second, func() (bool, string) {
		var syncs []string
		err := dc.Records(ctx, standby, debug.RecordQuery{Types: debug.TypeTrace, Key: "default/after-kill"}, func(r debug.Record) error {
			if r.Stage == debug.StageSync && r.Actor == "deployment" {
				syncs = append(syncs, r.Detail)
			}
			return nil
		})
		if err != nil {
			return false, err.Error()
		}
		return len(syncs) > 0, fmt.Sprintf("%s's deployment syncs of default/after-kill: %v", standby.Component, syncs)
	})
	lease, err := c.Client(t).Leases("kube-system").Get(ctx, "kube-controller-manager", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := lease.Spec.HolderIdentity; h == nil || *h != standby.Identity {
		t.Errorf("the Lease is held by %v, want the standby %s", h, standby.Identity)
	}
}
