package ctl

import "github.com/spf13/cobra"

// newFaultCommand is `ctl fault`: inject a fault into the running cluster
// and say what to watch for next. Each fault is a file of its own,
// fault_<name>.go.
func newFaultCommand(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fault",
		Short: "Inject a fault into the cluster and say what to watch for",
		Long: `fault breaks something in the running cluster on purpose, so you can watch
the control plane cope, and says which ` + "`ctl trace`" + ` or ` + "`ctl why`" + ` shows it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newFaultCompactCommand(f))
	return cmd
}
