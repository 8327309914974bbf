// Command cloud-controller-manager runs the controllers that talk to the
// cloud — load balancers for Services, the cloud's facts on Nodes, deleted
// machines, routes for pod ranges — against kplane's simulated cloud, as
// upstream's cloud-controller-manager runs them for a real one. See
// pkg/cloudcontrollermanager and docs/cloud-controller-manager.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"kplane/pkg/cloudcontrollermanager"
	"kplane/pkg/clusterclock"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
)

func main() {
	opts := cloudcontrollermanager.DefaultOptions()
	var debugFlags debug.Flags
	controllers := cloudcontrollermanager.Controllers(nil, opts)
	var names []string
	for _, d := range controllers {
		names = append(names, d.Name)
	}
	cmd := &cobra.Command{
		Use:   "cloud-controller-manager --kubeconfig FILE",
		Short: "Run the controllers that connect the cluster to its (simulated) cloud",
		Long: `cloud-controller-manager runs the cloud controllers against kplane's simulated
cloud "kplane": service-lb gives Services of type LoadBalancer an address from
--load-balancer-ip-range (labels only: nothing listens there), cloud-node fills
in providerID, zone, region and instance type on nodes registered with
--cloud-provider=external and removes their uninitialized taint,
cloud-node-lifecycle deletes unready nodes whose machine is gone and taints
those whose machine is shut down, and node-route keeps a route per node pod
range.

With --leader-elect only the holder of the Lease
kube-system/cloud-controller-manager runs them. /metrics, /healthz, the debug
API (/debug/kplane/…, with the cloud's state under /debug/kplane/cloud/, which
'ctl cloud' reads) and /debug/pprof/ are served on --bind-address.`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// One clock for the component and its journal.
			opts.Clock, opts.Journal = debugFlags.Setup(opts.VirtualClock)
			opts.DebugEndpointFile, opts.DebugComponent = debugFlags.EndpointFile, debugFlags.Component
			return cloudcontrollermanager.Run(ctx, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Kubeconfig, "kubeconfig", opts.Kubeconfig, "kubeconfig file with the apiserver's address and this manager's credentials (required)")
	f.StringSliceVar(&opts.Controllers, "controllers", opts.Controllers,
		"controllers to run: '*' runs every controller on by default, 'foo' turns foo on, '-foo' turns it off; the first entry naming a controller wins. Known: "+strings.Join(names, ", "))
	for _, d := range controllers {
		f.Var(opts.SyncsFlag(d.Name), d.SyncsFlag, fmt.Sprintf("how many keys the %s controller syncs at once", d.Name))
	}
	f.StringVar(&opts.CloudProvider, "cloud-provider", opts.CloudProvider, "the cloud provider: kplane, the simulated cloud, is the only one")
	f.StringVar(&opts.LoadBalancerIPRange, "load-balancer-ip-range", opts.LoadBalancerIPRange,
		"CIDR the load balancers' addresses come from (default a documentation range; the addresses are labels, never dialed)")
	f.StringVar(&opts.ClusterCIDR, "cluster-cidr", opts.ClusterCIDR, "CIDR of the nodes' pod ranges (comma-separated for dual stack): the node-route controller deletes stale routes inside it")
	f.BoolVar(&opts.ConfigureCloudRoutes, "configure-cloud-routes", opts.ConfigureCloudRoutes, "run the node-route controller, which keeps a cloud route per node pod range")
	f.StringVar(&opts.ClusterName, "cluster-name", opts.ClusterName, "the cluster's name in the cloud (route names start with it)")
	f.Float32Var(&opts.KubeAPIQPS, "kube-api-qps", opts.KubeAPIQPS, "client-side limit of requests per second to the apiserver, Events included (0: none)")
	f.IntVar(&opts.KubeAPIBurst, "kube-api-burst", opts.KubeAPIBurst, "requests that may go out at once above --kube-api-qps")
	opts.AddLeaderElectionFlags(f)
	f.StringVar(&opts.BindAddress, "bind-address", opts.BindAddress, "loopback host:port serving /metrics, /healthz and the debug API; port 0 picks a free port (the bound address is logged)")
	f.BoolVar(&opts.VirtualClock, "virtual-clock", false, clusterclock.FlagHelp)
	f.BoolVar(&opts.TraceInformers, "trace-informers", opts.TraceInformers, "log each object's path through the informers and into the controllers' workqueues, for lessons")
	debugFlags.AddFlags(f, "cloud-controller-manager")
	f.IntVarP(&opts.Verbosity, "v", "v", opts.Verbosity, "log verbosity: 4 and above log at debug level (every API request, per-key detail)")
	f.Var(&opts.InformerFIFO, "informer-fifo", informer.FIFOFlagHelp)
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
