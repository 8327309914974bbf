package fault

import (
	"context"
	"fmt"
	"strings"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/humanize"
)

// DropWatch ends the watch of each informer of the component at ep, as a
// broken connection would, and says what to watch for.
func DropWatch(ctx context.Context, dc *debug.Client, ep debug.Endpoint) (debug.DropWatchResult, string, error) {
	var result debug.DropWatchResult
	if err := dc.Post(ctx, ep, debug.PathFaultDropWatch, struct{}{}, &result); err != nil {
		return result, "", err
	}
	return result, dropWatchText(ep.Component, result), nil
}

// dropWatchText says what dropping component's watches did.
func dropWatchText(component string, result debug.DropWatchResult) string {
	var b strings.Builder
	if len(result.Resources) == 0 {
		fmt.Fprintf(&b, "%s has no informer watching, so there was nothing to drop.\n", component)
		if component == cluster.APIServerComponent {
			fmt.Fprintln(&b, "The apiserver serves watches rather than making them; `ctl fault compact` ends the watches it serves.")
		}
		return b.String()
	}
	fmt.Fprintf(&b, "fault injected: dropped the watches of %s's %s (%s).\n\n", component, humanize.Count(len(result.Resources), "informer"), strings.Join(result.Resources, ", "))
	fmt.Fprintf(&b, `Watch for:
  ctl trace <kind>/<name>
      a "rewatch" step from each of %s's reflectors, with the resourceVersion it watches
      from: the last one it saw. No "list" step follows: a watch resumed from a
      resourceVersion the apiserver still has replays every change since, so no relist.
`, component)
	if strings.HasPrefix(component, cluster.ControllerManagerComponent) {
		fmt.Fprintf(&b, "  ctl queues --component %s\n      nothing is enqueued by the drop itself: the caches did not change.\n", component)
	}
	return b.String()
}
