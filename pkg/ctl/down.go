package ctl

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
)

// newDownCommand is `ctl down`: stop a cluster started with `ctl up -d`.
func newDownCommand(streams IOStreams) *cobra.Command {
	dataDir := cluster.DefaultOptions().DataDir
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Stop the local cluster",
		Long: `down stops the cluster running in the data dir: it asks the cluster's
supervisor to stop the components (kubelets and controllers first, the
apiserver last) and stops any component left behind itself. Processes are
found only by the PIDs recorded in DATA_DIR/cluster.json, and only while
each is still the process that was started. The data stays: ` + "`ctl up`" + `
brings the cluster back with it.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			err := cluster.Down(dataDir)
			if errors.Is(err, cluster.ErrNotRunning) {
				fmt.Fprintf(streams.Out, "kplane is not running in %s.\n", dataDir)
				return nil
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(streams.Out, "kplane in %s stopped.\n", dataDir)
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", dataDir, "the cluster's data directory")
	return cmd
}
