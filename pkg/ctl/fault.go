package ctl

import (
	"github.com/spf13/cobra"
)

// newFaultCommand is `ctl fault`: break the local cluster on purpose, in
// the ways real clusters break, and watch the control plane cope.
func newFaultCommand(streams IOStreams, access debugAccess) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fault",
		Short: "Inject a fault into the local cluster: kill a component, fail API requests, drop watches",
		Long: `fault breaks the cluster ctl up started, in the ways real clusters break, so
you can watch the control plane recover. Each fault prints what to watch for
next and which of ctl queues, ctl trace or ctl why shows it.

  kill <component>        signal a component's process (the leader, for the
                          controller-manager and the scheduler); ctl up restarts it
  api-error               make the apiserver fail (or hold) one resource's requests for a while
  drop-watch <component>  end a component's watches, as a broken connection would

docs/lesson-queues-and-faults.md walks through them.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newFaultKillCommand(streams, access))
	cmd.AddCommand(newFaultAPIErrorCommand(streams, access))
	cmd.AddCommand(newFaultDropWatchCommand(streams, access))
	return cmd
}
