package browser

import (
	"path/filepath"
	"testing"

	"kplane/test/framework"
)

// TestLabsPanelFollowsTheSameLabAsCtl is issue 20's Done-when 3 in the
// page: a lab started in the Labs panel is the lab `ctl lab check` checks;
// a step done with kubectl passes the page's Check, a skipped one fails
// with its hint; the panel switches to Chinese; a step checked in a
// terminal shows in the page; Reset forgets the lab (labs_scenario.mjs).
func TestLabsPanelFollowsTheSameLabAsCtl(t *testing.T) {
	chromium, node := requireBrowser(t)
	c := framework.StartCluster(t, nil)
	_, login := startUI(t, c)

	runScenario(t, node, chromium, "labs_scenario.mjs", c, login,
		"KPLANE_CTL="+filepath.Join(framework.BuildBinaries(t), "ctl"))
}
