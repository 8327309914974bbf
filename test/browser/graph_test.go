package browser

import (
	"testing"

	"kplane/test/framework"
)

// TestGraphShowsStatefulSetStorage is issue 20's ownership graph with its
// storage links: the seeds' nginx-ss StatefulSet, given a
// volumeClaimTemplate, appears as StatefulSet → Pods (owns) → their
// PersistentVolumeClaims (uses) → the PersistentVolumes bound to them
// (bound), and no claim is drawn as owned (graph_scenario.mjs).
func TestGraphShowsStatefulSetStorage(t *testing.T) {
	chromium, node := requireBrowser(t)
	c := framework.StartCluster(t, nil)
	_, login := startUI(t, c)
	runScenario(t, node, chromium, "graph_scenario.mjs", c, login, "KPLANE_PV_DIR="+t.TempDir())
}
