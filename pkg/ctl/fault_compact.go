package ctl

import (
	"fmt"

	"github.com/spf13/cobra"

	"kplane/pkg/fault"
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
			c, err := f.Client()
			if err != nil {
				return err
			}
			_, text, err := fault.Compact(cmd.Context(), c)
			if err != nil {
				return err
			}
			fmt.Fprint(f.out(), text)
			return nil
		},
	}
}
