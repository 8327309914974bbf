package browser

import (
	"path/filepath"
	"testing"

	"kplane/test/framework"
)

// TestEtcdPanelShowsRevisionsAsResourceVersions drives the etcd panel
// (etcd_scenario.mjs): the Deployment's key, its revision equal to the
// resourceVersion kubectl prints, and its history growing with a scale.
// Screenshots are test artifacts.
func TestEtcdPanelShowsRevisionsAsResourceVersions(t *testing.T) {
	chromium, node := requireBrowser(t)
	c := framework.StartCluster(t, nil)
	_, login := startUI(t, c)

	runScenario(t, node, chromium, "etcd_scenario.mjs", c, login,
		"KPLANE_MANIFEST="+filepath.Join(framework.RepoRoot(t), "examples", "nginx-dep.yaml"))
}
