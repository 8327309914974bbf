package ctl

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/fault"
)

// newFaultDropWatchCommand is `ctl fault drop-watch <component>`: end a
// component's watches, as a broken connection would.
func newFaultDropWatchCommand(streams IOStreams, access debugAccess) *cobra.Command {
	dataDir := cluster.DefaultOptions().DataDir
	cmd := &cobra.Command{
		Use:   "drop-watch <component>",
		Short: "End every watch of a component's informers, as a broken connection would",
		Long: `drop-watch ends the watch of each informer of the component (controller-manager,
controller-manager-2, scheduler, kubelet-<node>). Each reflector watches again at
once from the last resourceVersion it saw: the apiserver replays what changed
since, so nothing is missed, nothing is repeated and nothing is relisted. That
is why a reflector remembers its resourceVersion (docs/informers.md).`,
		Example: `  ctl fault drop-watch controller-manager
  ctl fault drop-watch kubelet-node1`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runFaultDropWatch(cmd.Context(), streams.Out, access, dataDir, args[0])
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", dataDir, "the cluster's data directory")
	return cmd
}

func runFaultDropWatch(ctx context.Context, out io.Writer, access debugAccess, dataDir, component string) error {
	dc, endpoints, err := access(dataDir)
	if err != nil {
		return err
	}
	ep, err := endpointNamed(endpoints, component, dataDir)
	if err != nil {
		return err
	}
	_, text, err := fault.DropWatch(ctx, dc, ep)
	if err != nil {
		return err
	}
	fmt.Fprint(out, text)
	return nil
}
