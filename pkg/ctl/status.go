package ctl

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/procstat"
)

// newStatusCommand is `ctl status`: say what of the local cluster runs.
func newStatusCommand(streams IOStreams) *cobra.Command {
	dataDir := cluster.DefaultOptions().DataDir
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show which processes of the local cluster run and which nodes are Ready",
		Long: `status lists the cluster's processes (by the PIDs recorded in
DATA_DIR/cluster.json) and, when the apiserver answers, its nodes. It exits 0
while the cluster runs and 1 when it does not.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			report, err := cluster.Status(dataDir)
			if err != nil {
				return err
			}
			printStatus(streams.Out, dataDir, report, time.Now())
			if !report.Running {
				return ExitError{Code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", dataDir, "the cluster's data directory")
	return cmd
}

// printStatus writes the report as kubectl-style tables.
func printStatus(out io.Writer, dataDir string, r cluster.StatusReport, now time.Time) {
	if !r.Running {
		fmt.Fprintf(out, "kplane is not running in %s.\n", dataDir)
		return
	}
	fmt.Fprintf(out, "kplane is running in %s; apiserver %s\n", dataDir, r.Server)
	if r.LoadBalancer != "" {
		// Which balancer fronts the apiservers (docs/high-availability.md).
		fmt.Fprintf(out, "loadbalancer %s\n", r.LoadBalancer)
	}
	if r.DNS != "" {
		// The cluster DNS's address, for dig @127.0.0.1 -p PORT (docs/dns.md).
		fmt.Fprintf(out, "dns %s\n", r.DNS)
	}
	if r.MetricsServer != "" {
		// Where metrics-server listens; the apiserver reaches it through
		// the APIService v1beta1.metrics.k8s.io (docs/metrics-server.md).
		fmt.Fprintf(out, "metrics-server %s\n", r.MetricsServer)
	}
	fmt.Fprintln(out)

	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "COMPONENT\tPID\tSTATUS\tRESTARTS\tAGE\tMEMORY")
	running := 0
	for _, c := range append([]cluster.ComponentStatus{r.Supervisor}, r.Components...) {
		status, age := "Running", humanDuration(now.Sub(c.StartedAt))
		if !c.Running {
			status, age = "Exited", "-"
		} else {
			running++
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%d\t%s\t%s\n", c.Name, c.PID, status, c.Restarts, age, memoryColumn(c.Memory))
	}
	w.Flush()
	if total := r.TotalRSS(); total > 0 {
		fmt.Fprintf(out, "%d processes hold %s of resident memory (RSS; docs/performance.md, W2).\n", running, mebibytes(total))
	}

	fmt.Fprintln(out)
	if r.APIError != "" {
		fmt.Fprintf(out, "The apiserver did not answer: %s\n", r.APIError)
		return
	}
	w = tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "NODE\tSTATUS")
	for _, n := range r.Nodes {
		fmt.Fprintf(w, "%s\t%s\n", n.Name, n.Status)
	}
	w.Flush()
}

// memoryColumn is a process's resident memory as the MEMORY column shows
// it ("21.8Mi", the unit kubectl top uses), or "-" when it could not be
// read (the process has exited, or the system has no /proc).
func memoryColumn(m procstat.Memory) string {
	if m.RSS == 0 {
		return "-"
	}
	return mebibytes(m.RSS)
}

// mebibytes renders a byte count in Mi with one decimal.
func mebibytes(bytes uint64) string {
	return strconv.FormatFloat(procstat.MiB(bytes), 'f', 1, 64) + "Mi"
}

// humanDuration renders a component's age in one unit: seconds below two
// minutes, then minutes, hours and days. It is coarser than the AGE column
// of `ctl get` (humanize.Duration, "5m25s"); ctl status has always printed
// it this way.
func humanDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < 2*time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s"
	case d < 2*time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h"
	default:
		return strconv.Itoa(int(d.Hours()/24)) + "d"
	}
}
