package ctl

import (
	"github.com/spf13/cobra"

	"kplane/pkg/debug"
)

// newFaultCommand is `ctl fault`: break the local cluster on purpose, in
// the ways real clusters break, and watch the control plane cope. access
// finds the cluster's debug APIs.
//
// This is the minimal parent the time-warp work needs; the fault work adds
// kill, api-error and drop-watch beside pause-kubelet and resume-kubelet.
func newFaultCommand(streams IOStreams, access func(dataDir string) (*debug.Client, []debug.Endpoint, error)) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fault",
		Short: "Inject a fault into the local cluster: pause a kubelet's heartbeat",
		Long: `fault breaks the cluster ctl up started, in the ways real clusters break, so
you can watch the control plane recover. Each fault prints what to watch for
next.

  pause-kubelet <node>    stop a node's heartbeat: the node goes Unknown, its pods are evicted
  resume-kubelet <node>   start it again

docs/lesson-time.md walks through them.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newFaultPauseKubeletCommand(streams, access))
	cmd.AddCommand(newFaultResumeKubeletCommand(streams, access))
	return cmd
}
