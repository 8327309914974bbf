package ctl

import (
	"fmt"
	"net/http"

	"github.com/spf13/cobra"

	"kplane/pkg/debug"
)

// newFaultCompactCommand is `ctl fault compact`: compact etcd to now and
// make the apiserver drop every watch (pkg/apiserver's fault_compact.go).
func newFaultCompactCommand(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "compact",
		Short: "Compact etcd to now and drop every watch, forcing 410 Gone and relists",
		Long: `compact makes etcd forget every revision written so far, as the apiserver's
periodic compaction does with the revisions older than 5 minutes, and makes
the apiserver end every watch. Each client then watches again from the last
resourceVersion it saw, which etcd no longer has: the apiserver answers with
410 Gone (an ERROR event with an Expired Status), and the client's informer
lists everything again before it watches anew. ` + "`ctl etcd history`" + ` then
shows the compaction point.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var result debug.CompactResult
			if err := callAPIServerDebug(cmd.Context(), f, http.MethodPost, debug.PathFaultCompact, nil, &result); err != nil {
				return err
			}
			fmt.Fprintf(f.out(), "etcd compacted at revision %d; every watch was dropped (%d watches).\n", result.Revision, result.DroppedWatches)
			fmt.Fprintln(f.out(), "Watch the informers relist: `ctl trace <kind>/<name> --since 1m` shows list records after a 410 Gone,")
			fmt.Fprintln(f.out(), "and `ctl etcd history <kind>/<name>` shows the compaction point.")
			return nil
		},
	}
}
