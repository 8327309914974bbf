// Command scheduler runs kplane's scheduler: it watches pending pods whose
// spec.schedulerName is its own, picks a node for each with filter and
// score plugins, and binds them. See pkg/scheduler and docs/scheduler.md.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"kplane/pkg/clusterclock"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
	"kplane/pkg/scheduler"
)

func main() {
	opts := scheduler.DefaultOptions()
	opts.BindAddress = scheduler.DefaultBindAddress
	var debugFlags debug.Flags
	cmd := &cobra.Command{
		Use:   "scheduler --kubeconfig FILE",
		Short: "Place pending pods on nodes",
		Long: `scheduler watches pods that have no spec.nodeName and whose spec.schedulerName is
--scheduler-name, and binds each to the node that passes every filter (cordon,
taints, node affinity, host ports, resources) with the best score (least
allocated, balanced, preferred affinity, PreferNoSchedule taints). Pods that fit
nowhere stay Pending with a FailedScheduling event saying why.

With --v=4 it logs every decision: each node's filter result and per-plugin scores.

/healthz and /metrics are served on --bind-address (loopback only), and so are
the debug API (/debug/kplane/…) and /debug/pprof/, for cluster administrators'
tokens only (docs/debug-api.md).`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// One clock for the component and its journal.
			opts.Clock, opts.Journal = debugFlags.Setup(opts.VirtualClock)
			opts.DebugEndpointFile, opts.DebugComponent = debugFlags.EndpointFile, debugFlags.Component
			return scheduler.Run(ctx, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Kubeconfig, "kubeconfig", opts.Kubeconfig, "kubeconfig file with the apiserver's address and this scheduler's credentials (required)")
	f.StringVar(&opts.SchedulerName, "scheduler-name", opts.SchedulerName, "the spec.schedulerName of the pods this scheduler places; also the source of its events")
	f.BoolVar(&opts.LeaderElect, "leader-elect", opts.LeaderElect, "schedule only while holding the Lease --leader-elect-resource-namespace/--leader-elect-resource-name")
	f.StringVar(&opts.LeaderElectResourceName, "leader-elect-resource-name", opts.LeaderElectResourceName, "name of the leader election Lease")
	f.StringVar(&opts.LeaderElectResourceNamespace, "leader-elect-resource-namespace", opts.LeaderElectResourceNamespace, "namespace of the leader election Lease")
	f.DurationVar(&opts.LeaseDuration, "leader-elect-lease-duration", opts.LeaseDuration, "how long standbys wait after the last renewal before taking over")
	f.DurationVar(&opts.RenewDeadline, "leader-elect-renew-deadline", opts.RenewDeadline, "how long the leader keeps trying to renew before it stops leading")
	f.DurationVar(&opts.RetryPeriod, "leader-elect-retry-period", opts.RetryPeriod, "how often candidates try to acquire and the leader renews")
	f.IntVar(&opts.PercentageOfNodesToScore, "percentage-of-nodes-to-score", opts.PercentageOfNodesToScore, "stop looking for feasible nodes after this share of the cluster (at least 100 nodes); 0 = adaptive, 50% minus 1% per 125 nodes")
	f.Float32Var(&opts.KubeAPIQPS, "kube-api-qps", opts.KubeAPIQPS, "client-side limit of requests per second to the apiserver, bindings and Events included (0: none)")
	f.IntVar(&opts.KubeAPIBurst, "kube-api-burst", opts.KubeAPIBurst, "requests that may go out at once above --kube-api-qps")
	f.IntVar(&opts.ParallelBinds, "parallel-binds", opts.ParallelBinds, "binding requests in flight at once")
	f.BoolVar(&opts.VirtualClock, "virtual-clock", false, clusterclock.FlagHelp)
	f.BoolVar(&opts.TraceInformers, "trace-informers", false, "log each object's path through the informers (watch event, delta, store, handler) for lessons")
	f.StringVar(&opts.BindAddress, "bind-address", opts.BindAddress, "loopback host:port serving /healthz, /metrics, /debug/pprof/ and the debug API; port 0 picks a free port (the bound address is logged)")
	debugFlags.AddFlags(f, "scheduler")
	f.IntVarP(&opts.Verbosity, "v", "v", opts.Verbosity, "log verbosity: 2 logs every bound or unschedulable pod, 4 adds the decision log with per-plugin scores")
	f.Var(&opts.InformerFIFO, "informer-fifo", informer.FIFOFlagHelp)
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
