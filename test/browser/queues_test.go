package browser

import (
	"os"
	"os/exec"
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
	kubectl := framework.RequireKubectl(t)
	c := framework.StartCluster(t, nil)
	_, login := startUI(t, c)

	script := exec.Command(node, "queues_scenario.mjs")
	script.Env = append(os.Environ(),
		"KPLANE_UI_LOGIN="+login,
		"KPLANE_ARTIFACT_DIR="+t.ArtifactDir(),
		"KPLANE_KUBECTL="+kubectl,
		"KUBECONFIG="+c.KubeconfigPath(),
		"HOME="+c.Home,
		"KPLANE_MANIFEST="+filepath.Join(framework.RepoRoot(t), "examples", "nginx-dep.yaml"),
		"KPLANE_CHROMIUM="+chromium,
	)
	out, err := script.CombinedOutput()
	t.Logf("queues_scenario.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("queues_scenario.mjs: %v (screenshots in %s)", err, t.ArtifactDir())
	}
}
