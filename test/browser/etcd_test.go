package browser

import (
	"os"
	"os/exec"
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
	kubectl := framework.RequireKubectl(t)
	c := framework.StartCluster(t, nil)
	_, login := startUI(t, c)

	script := exec.Command(node, "etcd_scenario.mjs")
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
	t.Logf("etcd_scenario.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("etcd_scenario.mjs: %v (screenshots in %s)", err, t.ArtifactDir())
	}
}
