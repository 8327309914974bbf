package browser

import (
	"testing"

	"kplane/test/framework"
)

// TestTimelinePanelScrubsBackThroughARollout drives the Timeline panel
// (timeline_scenario.mjs): a Deployment's writes and Event in order, its
// YAML as of its first write after a scale, the arrow keys and Live.
// Screenshots are test artifacts.
func TestTimelinePanelScrubsBackThroughARollout(t *testing.T) {
	chromium, node := requireBrowser(t)
	c := framework.StartCluster(t, nil)
	_, login := startUI(t, c)

	runScenario(t, node, chromium, "timeline_scenario.mjs", c, login)
}
