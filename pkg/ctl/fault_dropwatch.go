package ctl

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
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
	var result debug.DropWatchResult
	if err := dc.Post(ctx, ep, debug.PathFaultDropWatch, struct{}{}, &result); err != nil {
		return err
	}
	if len(result.Resources) == 0 {
		fmt.Fprintf(out, "%s has no informer watching, so there was nothing to drop.\n", component)
		if component == cluster.APIServerComponent {
			fmt.Fprintln(out, "The apiserver serves watches rather than making them; `ctl fault compact` ends the watches it serves.")
		}
		return nil
	}
	fmt.Fprintf(out, "fault injected: dropped the watches of %s's %s (%s).\n\n", component, plural(len(result.Resources), "informer"), strings.Join(result.Resources, ", "))
	fmt.Fprintf(out, `Watch for:
  ctl trace <kind>/<name>
      a "rewatch" step from each of %s's reflectors, with the resourceVersion it watches
      from: the last one it saw. No "list" step follows: a watch resumed from a
      resourceVersion the apiserver still has replays every change since, so no relist.
`, component)
	if strings.HasPrefix(component, cluster.ControllerManagerComponent) {
		fmt.Fprintf(out, "  ctl queues --component %s\n      nothing is enqueued by the drop itself: the caches did not change.\n", component)
	}
	return nil
}

// plural renders "1 informer", "3 informers".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
