package browser

import (
	"os"
	"os/exec"
	"testing"

	"kplane/test/framework"
)

// runScenario runs the node script against cluster c with what every
// scenario reads (lib.mjs): the login link, the artifact directory, the
// real kubectl with the cluster's kubeconfig and home, and the browser;
// extraEnv adds the script's own NAME=value settings. It fails the test
// when the script fails, and logs what it printed either way.
func runScenario(t testing.TB, node, chromium, script string, c *framework.LocalCluster, login string, extraEnv ...string) {
	t.Helper()
	cmd := exec.Command(node, script)
	cmd.Env = append(os.Environ(),
		"KPLANE_UI_LOGIN="+login,
		"KPLANE_ARTIFACT_DIR="+t.ArtifactDir(),
		"KPLANE_KUBECTL="+framework.RequireKubectl(t),
		"KUBECONFIG="+c.KubeconfigPath(),
		"HOME="+c.Home,
		"KPLANE_CHROMIUM="+chromium,
	)
	cmd.Env = append(cmd.Env, extraEnv...)
	out, err := cmd.CombinedOutput()
	t.Logf("%s:\n%s", script, out)
	if err != nil {
		t.Fatalf("%s: %v (screenshots in %s)", script, err, t.ArtifactDir())
	}
}
