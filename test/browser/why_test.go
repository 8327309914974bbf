package browser

import (
	"path/filepath"
	"testing"

	"kplane/test/framework"
)

// TestWhyAndTraceOfTheSelectedObject is issue 20's Done-when 2, first
// half: a selected pod shows its Events and the scheduler's per-node table
// with the chosen node marked; the Deployment selected during a rollout
// shows the deployment controller's decision record and its trace. The
// screenshots are test artifacts.
func TestWhyAndTraceOfTheSelectedObject(t *testing.T) {
	chromium, node := requireBrowser(t)
	c := framework.StartCluster(t, nil)
	_, login := startUI(t, c)

	runScenario(t, node, chromium, "why_scenario.mjs", c, login,
		"KPLANE_MANIFEST="+filepath.Join(framework.RepoRoot(t), "examples", "nginx-dep.yaml"))
}
