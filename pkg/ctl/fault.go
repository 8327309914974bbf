package ctl

import "github.com/spf13/cobra"

// newFaultCommand is `ctl fault`: break the local cluster on purpose, in
// the ways real clusters break, and say what to watch for next. Each fault
// is a file of its own, fault_<name>.go.
func newFaultCommand(f *factory, access debugAccess) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fault",
		Short: "Inject a fault into the cluster and say what to watch for",
		Long: `fault breaks the cluster ctl up started, in the ways real clusters break, so
you can watch the control plane cope. Each fault prints what to watch for next
and which of ctl queues, ctl trace or ctl why shows it.

  kill <component>        signal a component's process (the leader, for the
                          controller-manager and the scheduler); ctl up restarts it
  api-error               make the apiserver fail (or hold) one resource's requests for a while
  drop-watch <component>  end a component's watches, as a broken connection would
  compact                 compact etcd to now and drop every watch: 410 Gone, relists
  pause-kubelet <node>    stop a node's heartbeat: it goes Unknown, its pods are evicted
  resume-kubelet <node>   start the heartbeat again

docs/lesson-queues-and-faults.md, docs/lesson-etcd.md and docs/lesson-time.md walk
through them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newFaultKillCommand(f.streams))
	cmd.AddCommand(newFaultAPIErrorCommand(f.streams, access))
	cmd.AddCommand(newFaultDropWatchCommand(f.streams, access))
	cmd.AddCommand(newFaultCompactCommand(f))
	cmd.AddCommand(newFaultPauseKubeletCommand(f.streams, access))
	cmd.AddCommand(newFaultResumeKubeletCommand(f.streams, access))
	return cmd
}
