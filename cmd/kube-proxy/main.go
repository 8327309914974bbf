// Command kube-proxy runs kplane's kube-proxy for one node: it watches
// Services and EndpointSlices and keeps the rules upstream's kube-proxy
// would program on that node, without touching the kernel. See
// pkg/kubeproxy and docs/kube-proxy.md.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"kplane/pkg/cluster"
	"kplane/pkg/clusterclock"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
	"kplane/pkg/kubeproxy"
)

func main() {
	opts := kubeproxy.DefaultOptions()
	var debugFlags debug.Flags
	cmd := &cobra.Command{
		Use:   "kube-proxy --kubeconfig FILE --hostname-override NODE",
		Short: "Compute a node's Service rules (iptables, nftables, IPVS)",
		Long: `kube-proxy watches Services, EndpointSlices and its Node and computes the
rules upstream's kube-proxy would program on node --hostname-override: the
iptables chains (KUBE-SERVICES, KUBE-SVC-…, KUBE-SEP-…), and the same state
as nftables and IPVS would hold it. It never programs the kernel and never
dials a Service or pod IP.

Changes are batched: a sync runs at most once per --min-sync-period and at
least once per --sync-period.

On --metrics-bind-address (loopback only) it serves /metrics, /healthz,
/livez, /proxyMode and /proxy/route (where would this connection go) to
anyone, as upstream's metrics port does, and /proxy/rules and the debug
API (/debug/kplane/…) to cluster administrators only (docs/kube-proxy.md).`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if !cmd.Flags().Changed("debug-component-name") && opts.HostnameOverride != "" {
				debugFlags.Component = cluster.KubeProxyComponent(opts.HostnameOverride)
			}
			// One clock for the component and its journal.
			opts.Clock, opts.Journal = debugFlags.Setup(opts.VirtualClock)
			opts.DebugEndpointFile, opts.DebugComponent = debugFlags.EndpointFile, debugFlags.Component
			return kubeproxy.Run(ctx, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Kubeconfig, "kubeconfig", opts.Kubeconfig, "kubeconfig file with the apiserver's address and this kube-proxy's credentials (required)")
	f.StringVar(&opts.HostnameOverride, "hostname-override", opts.HostnameOverride, "the name of the node this kube-proxy serves (required)")
	f.StringVar(&opts.MetricsBindAddress, "metrics-bind-address", opts.MetricsBindAddress, "loopback host:port serving /metrics, /healthz, /livez, /proxyMode, /proxy/route, /proxy/rules and the debug API; port 0 picks a free port")
	f.StringVar(&opts.ClusterCIDR, "cluster-cidr", opts.ClusterCIDR, "the pods' range: ClusterIP traffic from outside it is masqueraded (empty: no such rule)")
	f.StringVar(&opts.ServiceCIDR, "service-cluster-ip-range", opts.ServiceCIDR, "the Services' range (shown in the nftables view)")
	f.StringVar(&opts.Mode, "proxy-mode", opts.Mode, "which proxier's rules /proxyMode names and /proxy/rules shows by default: iptables, nftables or ipvs")
	f.DurationVar(&opts.MinSyncPeriod, "min-sync-period", opts.MinSyncPeriod, "the shortest time between two syncs; changes within it are batched into one sync")
	f.DurationVar(&opts.SyncPeriod, "sync-period", opts.SyncPeriod, "the longest time between two syncs, even when nothing changed")
	f.Float32Var(&opts.KubeAPIQPS, "kube-api-qps", opts.KubeAPIQPS, "client-side limit of requests per second to the apiserver (0: none)")
	f.IntVar(&opts.KubeAPIBurst, "kube-api-burst", opts.KubeAPIBurst, "requests that may go out at once above --kube-api-qps")
	f.IntVarP(&opts.Verbosity, "v", "v", opts.Verbosity, "log verbosity: 2 logs every sync with its counts and time")
	f.Var(&opts.InformerFIFO, "informer-fifo", informer.FIFOFlagHelp)
	f.BoolVar(&opts.TraceInformers, "trace-informers", false, "log each object's path through the informers (watch event, delta, store, handler) for lessons")
	f.BoolVar(&opts.VirtualClock, "virtual-clock", false, clusterclock.FlagHelp)
	debugFlags.AddFlags(f, "kube-proxy")
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
