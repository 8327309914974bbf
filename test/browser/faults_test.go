package browser

import (
	"os"
	"os/exec"
	"testing"

	"kplane/pkg/cluster"
	"kplane/test/framework"
)

// TestFaultButtonsAndTheClock drives the faults and cluster-clock panels
// on a cluster started with the virtual clock: a clock button moves the
// time shown; "Compact etcd" reports its revision; an API error injected
// from the page makes kubectl fail with it, and clearing it makes kubectl
// work again; a kubelet paused from the page, with the clock advanced past
// the node-monitor grace period, leaves its node NotReady. Screenshots of
// each state are artifacts.
func TestFaultButtonsAndTheClock(t *testing.T) {
	chromium, node := requireBrowser(t)
	kubectl := framework.RequireKubectl(t)
	c := framework.StartCluster(t, func(o *cluster.Options) { o.VirtualClock = true })
	_, login := startUI(t, c)

	script := exec.Command(node, "faults_scenario.mjs")
	script.Env = append(os.Environ(),
		"KPLANE_UI_LOGIN="+login,
		"KPLANE_ARTIFACT_DIR="+t.ArtifactDir(),
		"KPLANE_KUBECTL="+kubectl,
		"KUBECONFIG="+c.KubeconfigPath(),
		"HOME="+c.Home,
		"KPLANE_CHROMIUM="+chromium,
	)
	out, err := script.CombinedOutput()
	t.Logf("faults_scenario.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("faults_scenario.mjs: %v (screenshots in %s)", err, t.ArtifactDir())
	}
}
