package browser

import (
	"path/filepath"
	"testing"

	"kplane/test/framework"
)

// TestUIShowsLeasesAndAKeyThroughItsWorkqueue is issue 20's Done-when 2
// for the machinery panels, in a real browser: the Leader-election panel
// names the holders of the controller-manager's and the scheduler's Leases
// (with the process that leads) and sees a renewal; after `kubectl scale
// deployment ng-dep`, the Workqueues panel, filtered to the deployment
// queue, shows default/ng-dep pass queue → processing → done, in that
// order. Screenshots of both panels are test artifacts.
func TestUIShowsLeasesAndAKeyThroughItsWorkqueue(t *testing.T) {
	chromium, node := requireBrowser(t)
	c := framework.StartCluster(t, nil)
	_, login := startUI(t, c)

	runScenario(t, node, chromium, "queues_scenario.mjs", c, login,
		"KPLANE_MANIFEST="+filepath.Join(framework.RepoRoot(t), "examples", "nginx-dep.yaml"))
}
