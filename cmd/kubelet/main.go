// Command kubelet runs kplane's simulated node agent: it registers a Node
// (or, with --node-count, many hollow nodes), heartbeats its Lease and runs
// the pods bound to it. See pkg/kubelet and docs/kubelet.md.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"kplane/pkg/client"
	"kplane/pkg/clusterclock"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
	"kplane/pkg/kubelet"
	"kplane/pkg/kubelet/server"
)

func main() {
	opts := kubelet.DefaultOptions()
	var taints, labels string
	var verbosity int
	var debugFlags debug.Flags
	opts.DebugAddress = kubelet.DefaultDebugAddress
	cmd := &cobra.Command{
		Use:   "kubelet",
		Short: "Run a simulated Kubernetes node (or many) against a kplane apiserver",
		Long: `kubelet registers a Node, renews its Lease in kube-node-lease every 10 s and runs
the pods bound to it. With --runtime simulated (the default) nothing really runs:
containers behave as the pods' sim.kplane.io/* annotations say (docs/kubelet.md).
With --runtime process a container's command runs as a local process.

  kubelet --kubeconfig .kplane/kubeconfigs/node1.kubeconfig --node-name node1
  kubelet --kubeconfig K --node-count 100 --node-name-prefix hollow- --pod-cidr 10.244.1.0/24`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if opts.RegisterWithTaints, err = kubelet.ParseTaints(taints); err != nil {
				return err
			}
			if opts.NodeLabels, err = kubelet.ParseLabels(labels); err != nil {
				return err
			}
			level := slog.LevelInfo
			if verbosity >= 4 {
				level = slog.LevelDebug
			}
			if !cmd.Flags().Changed("address") {
				opts.Address = kubelet.DefaultAddress(opts.NodeIP)
			}
			opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			opts.Server = logsServer(opts.Kubeconfig)
			if debugFlags.Component == "" {
				debugFlags.Component = opts.DefaultDebugComponent()
			}
			// One clock for the component and its journal.
			opts.Clock, opts.Journal = debugFlags.Setup(opts.VirtualClock)
			opts.DebugEndpointFile, opts.DebugComponent = debugFlags.EndpointFile, debugFlags.Component
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return kubelet.Run(ctx, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.VirtualClock, "virtual-clock", false, clusterclock.FlagHelp)
	f.BoolVar(&opts.TraceInformers, "trace-informers", false, "log each pod's path through the informer (watch event, delta, store, handler) for lessons")
	f.StringVar(&opts.Kubeconfig, "kubeconfig", opts.Kubeconfig, "kubeconfig file to reach the apiserver with (required)")
	f.StringVar(&opts.NetworkKubeconfig, "network-kubeconfig", opts.NetworkKubeconfig, "kubeconfig the simulated runtime's network reads other nodes' pods with (kplane-only; default: --kubeconfig)")
	f.StringVar(&opts.NodeName, "node-name", opts.NodeName, "name of the node (required unless --node-count is given)")
	f.IntVar(&opts.NodeCount, "node-count", opts.NodeCount, "simulate this many hollow nodes in one process, named <prefix>1 … <prefix>N")
	f.StringVar(&opts.NodeNamePrefix, "node-name-prefix", opts.NodeNamePrefix, "name prefix of the nodes of --node-count")
	f.StringVar(&opts.CPU, "cpu", opts.CPU, "CPU capacity of each node")
	f.StringVar(&opts.Memory, "memory", opts.Memory, "memory capacity of each node")
	f.StringVar(&opts.EphemeralStorage, "ephemeral-storage", opts.EphemeralStorage, "ephemeral-storage capacity of each node")
	f.IntVar(&opts.Pods, "pods", opts.Pods, "maximum number of pods per node")
	f.StringVar(&opts.Runtime, "runtime", opts.Runtime, "container runtime: simulated or process")
	f.StringVar(&taints, "register-with-taints", "", "taints to register the node with: key=value:Effect,key:Effect")
	f.StringVar(&labels, "node-labels", "", "labels to register the node with: key=value,…")
	f.StringVar(&opts.PodCIDR, "pod-cidr", opts.PodCIDR, "pod IP range when the Node has none (with --node-count: the first node's; the next nodes get the following blocks)")
	f.StringVar(&opts.NodeIP, "node-ip", opts.NodeIP, "the node's InternalIP (and every pod's hostIP), where the apiserver dials the kubelet's server")
	f.StringVar(&opts.Address, "address", opts.Address, "IP address the kubelet's HTTPS server (logs, exec, port-forward, stats) listens on; its serving certificate names it and --node-ip (default 127.0.0.1, or --node-ip when that is not loopback)")
	f.StringVar(&opts.PodManifestPath, "pod-manifest-path", opts.PodManifestPath, "directory of static pod manifests")
	f.DurationVar(&opts.FileCheckFrequency, "file-check-frequency", opts.FileCheckFrequency, "how often the static pod directory is reread")
	f.DurationVar(&opts.NodeStatusUpdateFrequency, "node-status-update-frequency", opts.NodeStatusUpdateFrequency, "how often the node's status is recomputed (and written if changed)")
	f.DurationVar(&opts.NodeStatusReportFrequency, "node-status-report-frequency", opts.NodeStatusReportFrequency, "how often an unchanged node status is written anyway")
	f.DurationVar(&opts.NodeLeaseRenewInterval, "node-lease-renew-interval", opts.NodeLeaseRenewInterval, "how often the node Lease is renewed")
	f.Float32Var(&opts.KubeAPIQPS, "kube-api-qps", opts.KubeAPIQPS, "client-side limit of requests per second to the apiserver (0: none)")
	f.IntVar(&opts.KubeAPIBurst, "kube-api-burst", opts.KubeAPIBurst, "requests that may go out at once above --kube-api-qps")
	f.Float32Var(&opts.EventRecordQPS, "event-qps", opts.EventRecordQPS, "limit of Events written per second by the whole process (0: none)")
	f.IntVar(&opts.EventBurst, "event-burst", opts.EventBurst, "Events that may be written at once above --event-qps")
	f.StringVar(&opts.DebugAddress, "debug-address", opts.DebugAddress, "loopback host:port serving /healthz, /metrics, /debug/pprof/ and the debug API; port 0 picks a free port")
	f.StringVar(&opts.ClusterDNS, "cluster-dns", opts.ClusterDNS, "IP of the cluster DNS Service, the nameserver in pods' /etc/resolv.conf (a label, never dialled)")
	f.StringVar(&opts.ClusterDomain, "cluster-domain", opts.ClusterDomain, "the cluster's DNS domain")
	f.StringVar(&opts.DNSAddress, "dns-address", opts.DNSAddress, "loopback host:port where the cluster DNS answers, for look-ups made inside pods")
	f.StringVar(&opts.KubeProxyAddress, "kube-proxy-address", opts.KubeProxyAddress, "loopback host:port of this node's kube-proxy, asked where a connection to a Service would go")
	f.StringVar(&opts.CloudProvider, "cloud-provider", opts.CloudProvider, `"external" registers the node with the node.cloudprovider.kubernetes.io/uninitialized taint for the cloud-controller-manager to remove`)
	debugFlags.AddFlags(f, "")
	f.Lookup("debug-component-name").Usage += " (default kubelet-<node-name>)"
	f.IntVarP(&verbosity, "v", "v", 0, "log verbosity: 4 and above log at debug level")
	f.Var(&opts.InformerFIFO, "informer-fifo", informer.FIFOFlagHelp)
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}

// logsServer starts the kubelet's HTTPS server for `kubectl logs`, trusting
// client certificates signed by the cluster CA named in the kubeconfig and
// bearer tokens the apiserver vouches for, and authorizing every call with
// a SubjectAccessReview asked as the node.
func logsServer(kubeconfig string) kubelet.ServerFunc {
	return func(ctx context.Context, env kubelet.ServerEnv) (int32, error) {
		cfg, err := client.ConfigFromKubeconfig(kubeconfig, "")
		if err != nil {
			return 0, fmt.Errorf("read the cluster CA: %w", err)
		}
		return server.StartServerAt(ctx, env.Address, env.NodeIP, cfg.CAData, env.Client, server.TokenAuthenticator(env.Tokens), env.Containers, env.Logger)
	}
}
