package ctl

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/kubelet"
)

// newFaultPauseKubeletCommand is `ctl fault pause-kubelet <node>`: stop a
// node's heartbeat, as a kubelet that died or lost its network would.
// access finds the cluster's debug APIs (debug.Connect, or a fake in tests).
func newFaultPauseKubeletCommand(streams IOStreams, access func(dataDir string) (*debug.Client, []debug.Endpoint, error)) *cobra.Command {
	dataDir := cluster.DefaultOptions().DataDir
	cmd := &cobra.Command{
		Use:   "pause-kubelet <node>",
		Short: "Stop a node's heartbeat (Lease renewals and node status) until resume-kubelet",
		Long: `pause-kubelet asks the node's kubelet, through its debug API, to stop its
heartbeat: it no longer renews its Lease in kube-node-lease nor posts its node
status. Nothing else stops — its pods keep running and their statuses are still
written — but to the control plane the node looks like one whose kubelet died
or lost its network. After the node-monitor grace period (50 s) the
node-lifecycle controller marks the node Unknown and taints it
node.kubernetes.io/unreachable; after the pods' tolerationSeconds (300 s unless
they say otherwise) the taint-eviction controller evicts them and their
controllers create replacements elsewhere. On a cluster started with
` + "`ctl up --virtual-clock`" + `, ` + "`ctl time advance`" + ` gets there in seconds.`,
		Example: `  ctl fault pause-kubelet node1
  ctl time advance 60s
  ctl fault resume-kubelet node1`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFaultPauseKubelet(cmd.Context(), streams.Out, access, dataDir, args[0], true)
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", dataDir, "the cluster's data directory")
	return cmd
}

// newFaultResumeKubeletCommand is `ctl fault resume-kubelet <node>`.
func newFaultResumeKubeletCommand(streams IOStreams, access func(dataDir string) (*debug.Client, []debug.Endpoint, error)) *cobra.Command {
	dataDir := cluster.DefaultOptions().DataDir
	cmd := &cobra.Command{
		Use:   "resume-kubelet <node>",
		Short: "Start a paused node's heartbeat again",
		Long: `resume-kubelet asks the node's kubelet to renew its Lease and post its node
status again, at once. The node-lifecycle controller sees the heartbeat at its
next check (every 5 s), and the kubelet's status says Ready again: the
unreachable taints go, and pods may be scheduled there again. Pods already
evicted do not come back; their replacements stay where they run.`,
		Example: `  ctl fault resume-kubelet node1`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFaultPauseKubelet(cmd.Context(), streams.Out, access, dataDir, args[0], false)
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", dataDir, "the cluster's data directory")
	return cmd
}

// runFaultPauseKubelet pauses (or resumes) node's heartbeat through its
// kubelet's debug API and says what to watch for next.
func runFaultPauseKubelet(ctx context.Context, out io.Writer, access func(string) (*debug.Client, []debug.Endpoint, error),
	dataDir, node string, pause bool) error {
	dc, endpoints, err := access(dataDir)
	if err != nil {
		return err
	}
	ep, err := kubeletEndpoint(endpoints, node, dataDir)
	if err != nil {
		return err
	}
	path := kubelet.PathResume
	if pause {
		path = kubelet.PathPause
	}
	var states []kubelet.HeartbeatState
	if err := dc.Post(ctx, ep, path+"?node="+node, struct{}{}, &states); err != nil {
		return err
	}
	if len(states) != 1 || states[0].Node != node || states[0].Paused != pause {
		return fmt.Errorf("%s answered %+v, not node %s with its heartbeat paused=%v", ep.Component, states, node, pause)
	}
	if pause {
		printPausedKubelet(out, node)
	} else {
		printResumedKubelet(out, node)
	}
	return nil
}

// kubeletEndpoint finds the debug endpoint of node's kubelet.
func kubeletEndpoint(endpoints []debug.Endpoint, node, dataDir string) (debug.Endpoint, error) {
	want := cluster.KubeletComponent(node)
	var nodes []string
	for _, ep := range endpoints {
		if ep.Component == want {
			return ep, nil
		}
		if name, ok := strings.CutPrefix(ep.Component, "kubelet-"); ok {
			nodes = append(nodes, name)
		}
	}
	return debug.Endpoint{}, fmt.Errorf("no kubelet of node %q announced a debug API in %s (nodes found: %s)",
		node, dataDir, strings.Join(nodes, ", "))
}

// printPausedKubelet says what a paused heartbeat leads to, and where to
// see it happen.
func printPausedKubelet(out io.Writer, node string) {
	fmt.Fprintf(out, `fault injected: %[1]s's kubelet stopped its heartbeat. %[1]s stops renewing its Lease
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

// printResumedKubelet says what a resumed heartbeat leads to.
func printResumedKubelet(out io.Writer, node string) {
	fmt.Fprintf(out, `%[1]s's kubelet resumed its heartbeat: it renews its Lease and posts its node status again.

Watch for:
  the node-lifecycle controller sees the renewal at its next check (every 5 s), and
  %[1]s is Ready again without the unreachable taints. Pods already evicted do not come back.
  kubectl get nodes -w
`, node)
}
