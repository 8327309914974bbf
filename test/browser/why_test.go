package browser

import (
	"os"
	"os/exec"
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
	kubectl := framework.RequireKubectl(t)
	c := framework.StartCluster(t, nil)
	_, login := startUI(t, c)

	script := exec.Command(node, "why_scenario.mjs")
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
	t.Logf("why_scenario.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("why_scenario.mjs: %v (screenshots in %s)", err, t.ArtifactDir())
	}
}
