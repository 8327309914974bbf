package browser

import (
	"os"
	"os/exec"
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
	kubectl := framework.RequireKubectl(t)
	c := framework.StartCluster(t, nil)
	_, login := startUI(t, c)

	script := exec.Command(node, "labs_scenario.mjs")
	script.Env = append(os.Environ(),
		"KPLANE_UI_LOGIN="+login,
		"KPLANE_ARTIFACT_DIR="+t.ArtifactDir(),
		"KPLANE_KUBECTL="+kubectl,
		"KPLANE_CTL="+filepath.Join(framework.BuildBinaries(t), "ctl"),
		"KUBECONFIG="+c.KubeconfigPath(),
		"HOME="+c.Home,
		"KPLANE_CHROMIUM="+chromium,
	)
	out, err := script.CombinedOutput()
	t.Logf("labs_scenario.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("labs_scenario.mjs: %v (screenshots in %s)", err, t.ArtifactDir())
	}
}
