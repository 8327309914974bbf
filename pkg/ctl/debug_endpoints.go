package ctl

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
)

// newDebugCommand is `ctl debug`: the local cluster's debug APIs.
func newDebugCommand(streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "debug",
		Short: "Find the debug APIs of the local cluster's components",
		Long: `Every component of a cluster started by ` + "`ctl up`" + ` serves a debug API on
loopback: its journal of what it saw and decided, its workqueues, its leader
election, /metrics and /debug/pprof/. Only cluster administrators' tokens are
admitted. docs/debug-api.md describes the paths.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newDebugEndpointsCommand(streams))
	return cmd
}

// newDebugEndpointsCommand is `ctl debug endpoints`: where each component
// serves its debug API.
func newDebugEndpointsCommand(streams IOStreams) *cobra.Command {
	dataDir := cluster.DefaultOptions().DataDir
	cmd := &cobra.Command{
		Use:   "endpoints",
		Short: "List each component's debug API address",
		Long: `endpoints lists the debug API address each component of the cluster in
--data-dir announced in DATA_DIR/debug/<component>.json, with its PID and, for
the controller-manager and the scheduler, its leader-election identity.`,
		Example: `  ctl debug endpoints
  TOKEN=$(kubectl --kubeconfig .kplane/kubeconfig config view --raw -o jsonpath='{.users[0].user.token}')
  curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:PORT/debug/kplane/queues`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			endpoints, err := debug.LocalEndpoints(dataDir)
			if err != nil {
				return err
			}
			printEndpoints(streams.Out, endpoints)
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", dataDir, "the cluster's data directory")
	return cmd
}

// printEndpoints writes endpoints as a kubectl-style table.
func printEndpoints(out io.Writer, endpoints []debug.Endpoint) {
	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "COMPONENT\tURL\tPID\tIDENTITY")
	for _, e := range endpoints {
		identity := e.Identity
		if identity == "" {
			identity = "<none>"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", e.Component, e.URL, strconv.Itoa(e.PID), identity)
	}
	w.Flush()
}
