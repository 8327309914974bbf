package browser

import (
	"os"
	"os/exec"
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
	kubectl := framework.RequireKubectl(t)
	c := framework.StartCluster(t, nil)
	_, login := startUI(t, c)

	script := exec.Command(node, "graph_scenario.mjs")
	script.Env = append(os.Environ(),
		"KPLANE_UI_LOGIN="+login,
		"KPLANE_ARTIFACT_DIR="+t.ArtifactDir(),
		"KPLANE_KUBECTL="+kubectl,
		"KUBECONFIG="+c.KubeconfigPath(),
		"HOME="+c.Home,
		"KPLANE_PV_DIR="+t.TempDir(),
		"KPLANE_CHROMIUM="+chromium,
	)
	out, err := script.CombinedOutput()
	t.Logf("graph_scenario.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("graph_scenario.mjs: %v (screenshots in %s)", err, t.ArtifactDir())
	}
}
