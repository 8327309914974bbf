package ctl

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/fault"
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
// kubelet's debug API (fault.PauseKubelet) and says what to watch for next.
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
	text, err := fault.PauseKubelet(ctx, dc, ep, node, pause)
	if err != nil {
		return err
	}
	fmt.Fprint(out, text)
	return nil
}

// kubeletEndpoint finds the debug endpoint of node's kubelet
// (fault.KubeletEndpoint).
var kubeletEndpoint = fault.KubeletEndpoint
