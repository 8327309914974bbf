package browser

import (
	"testing"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// TestFaultButtonsAndTheClock drives the faults and cluster-clock panels
// on a cluster started with the virtual clock and a standby
// controller-manager: killing the leader from the page hands its Lease to
// the standby (the Leader election panel shows it); a clock button moves the
// time shown; "Compact etcd" reports its revision; an API error injected
// from the page makes kubectl fail with it, and clearing it makes kubectl
// work again; a kubelet paused from the page, with the clock advanced past
// the node-monitor grace period, leaves its node NotReady. Screenshots of
// each state are artifacts.
func TestFaultButtonsAndTheClock(t *testing.T) {
	chromium, node := requireBrowser(t)
	c := framework.StartCluster(t, func(o *cluster.Options) { o.VirtualClock, o.ControllerManagers = true, 2 })
	_, login := startUI(t, c)

	runScenario(t, node, chromium, "faults_scenario.mjs", c, login)
}
