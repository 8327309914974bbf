// Command controller-manager runs kplane's controllers — the loops that
// turn Deployments into ReplicaSets into Pods, give every namespace its
// default ServiceAccount, and so on — in one process, as
// kube-controller-manager does. See pkg/controllermanager and
// docs/controllers.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"kplane/pkg/clusterclock"
	"kplane/pkg/controllermanager"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
)

func main() {
	opts := controllermanager.DefaultOptions()
	var names []string
	var debugFlags debug.Flags
	for _, d := range controllermanager.Controllers() {
		names = append(names, d.Name)
	}
	cmd := &cobra.Command{
		Use:   "controller-manager --kubeconfig FILE",
		Short: "Run the controllers that drive the cluster toward its desired state",
		Long: `controller-manager runs kplane's controllers in one process. Each watches the
objects it cares about through informers shared by all of them, and on every
change compares the desired state with the actual one and makes one step
toward it through the API.

With --leader-elect, only the holder of the Lease
kube-system/kube-controller-manager runs the controllers; other instances keep
their caches warm and take over within one lease duration when it goes away.

/metrics and /healthz are served on --bind-address (loopback only), and so
are the debug API (/debug/kplane/…) and /debug/pprof/, for cluster
administrators' tokens only (docs/debug-api.md).`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// One clock for the component and its journal.
			opts.Clock, opts.Journal = debugFlags.Setup(opts.VirtualClock)
			opts.DebugEndpointFile, opts.DebugComponent = debugFlags.EndpointFile, debugFlags.Component
			return controllermanager.Run(ctx, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Kubeconfig, "kubeconfig", opts.Kubeconfig, "kubeconfig file with the apiserver's address and this controller-manager's credentials (required)")
	f.StringSliceVar(&opts.Controllers, "controllers", opts.Controllers,
		"controllers to run: '*' runs every controller on by default, 'foo' turns foo on, '-foo' turns it off; the first entry naming a controller wins. Known: "+strings.Join(names, ", ")+
			". Upstream's cloud controllers (cloud-node-lifecycle, route, service) run in the cloud-controller-manager, as with an external cloud provider")
	for _, d := range controllermanager.Controllers() {
		f.Var(opts.SyncsFlag(d.Name), d.SyncsFlag, fmt.Sprintf("how many keys the %s controller syncs at once", d.Name))
	}
	f.Float32Var(&opts.KubeAPIQPS, "kube-api-qps", opts.KubeAPIQPS, "client-side limit of requests per second to the apiserver, Events included (0: none)")
	f.IntVar(&opts.KubeAPIBurst, "kube-api-burst", opts.KubeAPIBurst, "requests that may go out at once above --kube-api-qps")
	f.BoolVar(&opts.UseServiceAccountCredentials, "use-service-account-credentials", opts.UseServiceAccountCredentials,
		"run each controller as its own ServiceAccount in kube-system (system:serviceaccount:kube-system:<name>), with a token from the TokenRequest API, so that its RBAC role bounds what it may do")
	opts.AddLeaderElectionFlags(f)
	f.DurationVar(&opts.NodeMonitorGracePeriod, "node-monitor-grace-period", opts.NodeMonitorGracePeriod,
		"how long a node may miss heartbeats before the node-lifecycle controller marks it Unknown and taints it unreachable")
	opts.HPA.AddFlags(f)
	f.DurationVar(&opts.ResourceQuotaSyncPeriod, "resource-quota-sync-period", opts.ResourceQuotaSyncPeriod,
		"how often the resourcequota controller recounts every quota's usage")
	f.StringVar(&opts.HostPathVolumesDir, "hostpath-volumes-dir", opts.HostPathVolumesDir,
		"directory the hostpath-provisioner controller makes volumes in (required when that controller runs; off by default)")
	f.StringVar(&opts.ServiceAccountPrivateKeyFile, "service-account-private-key-file", opts.ServiceAccountPrivateKeyFile,
		"PEM RSA private key the serviceaccount-token controller signs legacy token Secrets with (the apiserver's; empty turns that controller off)")
	f.StringVar(&opts.ClusterSigningCertFile, "cluster-signing-cert-file", opts.ClusterSigningCertFile,
		"PEM CA certificate the csrsigning controller issues certificates with (empty turns that controller off)")
	f.StringVar(&opts.ClusterSigningKeyFile, "cluster-signing-key-file", opts.ClusterSigningKeyFile,
		"PEM private key of --cluster-signing-cert-file")
	f.DurationVar(&opts.ClusterSigningDuration, "cluster-signing-duration", opts.ClusterSigningDuration,
		"longest validity the csrsigning controller gives a certificate")
	f.StringVar(&opts.BindAddress, "bind-address", opts.BindAddress, "loopback host:port serving /metrics and /healthz; port 0 picks a free port (the bound address is logged)")
	f.BoolVar(&opts.VirtualClock, "virtual-clock", false, clusterclock.FlagHelp)
	f.BoolVar(&opts.TraceInformers, "trace-informers", opts.TraceInformers, "log each object's path through the informers and into the controllers' workqueues, for lessons")
	debugFlags.AddFlags(f, "controller-manager")
	f.IntVarP(&opts.Verbosity, "v", "v", opts.Verbosity, "log verbosity: 4 and above log at debug level (every API request, per-key detail)")
	f.Var(&opts.InformerFIFO, "informer-fifo", informer.FIFOFlagHelp)
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
