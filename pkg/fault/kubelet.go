package fault

import (
	"context"
	"fmt"

	"kplane/pkg/debug"
	"kplane/pkg/kubelet"
)

// PauseKubelet stops (pause) or starts again (!pause) the heartbeat of
// node's kubelet, whose debug endpoint is ep, and says what follows.
func PauseKubelet(ctx context.Context, dc *debug.Client, ep debug.Endpoint, node string, pause bool) (string, error) {
	path := kubelet.PathResume
	if pause {
		path = kubelet.PathPause
	}
	var states []kubelet.HeartbeatState
	if err := dc.Post(ctx, ep, path+"?node="+node, struct{}{}, &states); err != nil {
		return "", err
	}
	if len(states) != 1 || states[0].Node != node || states[0].Paused != pause {
		return "", fmt.Errorf("%s answered %+v, not node %s with its heartbeat paused=%v", ep.Component, states, node, pause)
	}
	if pause {
		return pausedText(node), nil
	}
	return resumedText(node), nil
}

// pausedText says what a paused heartbeat leads to, and where to see it
// happen.
func pausedText(node string) string {
	return fmt.Sprintf(`fault injected: %[1]s's kubelet stopped its heartbeat. %[1]s stops renewing its Lease
(kube-node-lease/%[1]s) and posting node status; its pods keep running.

Watch for:
  after 50 s of cluster time without a heartbeat (--node-monitor-grace-period), the
  node-lifecycle controller marks %[1]s Unknown (NotReady) and taints it
  node.kubernetes.io/unreachable:NoExecute; 300 s later (the pods' default
  tolerationSeconds) the taint-eviction controller evicts its pods, and their
  controllers create replacements on other nodes.
  kubectl get nodes -w
  ctl why node/%[1]s
  ctl time advance 60s      (a cluster started with --virtual-clock: get there now)
Undo: ctl fault resume-kubelet %[1]s
`, node)
}

// resumedText says what a resumed heartbeat leads to.
func resumedText(node string) string {
	return fmt.Sprintf(`%[1]s's kubelet resumed its heartbeat: it renews its Lease and posts its node status again.

Watch for:
  the node-lifecycle controller sees the renewal at its next check (every 5 s), and
  %[1]s is Ready again without the unreachable taints. Pods already evicted do not come back.
  kubectl get nodes -w
`, node)
}
