// Command dns runs kplane's cluster DNS, CoreDNS's part in a real
// cluster: it answers names under the cluster domain from the Services
// and EndpointSlices it follows, on a loopback UDP and TCP port. See
// pkg/dns and docs/dns.md.
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
	"kplane/pkg/dns"
	"kplane/pkg/informer"
)

func main() {
	opts := dns.DefaultOptions()
	opts.BindAddress = dns.DefaultBindAddress
	var debugFlags debug.Flags
	cmd := &cobra.Command{
		Use:   "dns --kubeconfig FILE",
		Short: "Answer DNS for the cluster's Services and pods",
		Long: `dns answers the names of the Kubernetes DNS schema under --cluster-domain,
as CoreDNS's kubernetes plugin does, from the Services, EndpointSlices and
Namespaces it watches:

  web.default.svc.cluster.local                   A/AAAA: the cluster IP, or a
                                                  headless Service's ready endpoints
  nginx-ss-0.nginx-ss.default.svc.cluster.local   an endpoint by hostname
  _http._tcp.web.default.svc.cluster.local        SRV for a named port
  10-244-1-5.default.pod.cluster.local            a pod by its IP
  5.1.244.10.in-addr.arpa                         PTR

It forwards nothing: names outside the cluster domain and the reverse zones
are REFUSED (localhost answers 127.0.0.1). At start it creates the kube-dns
Service in kube-system with --service-ip, as kubeadm's add-on does; no pod
backs it.

/healthz, /readyz and /metrics (CoreDNS's coredns_dns_* metrics) are served on
--bind-address (loopback only), and so is the debug API, for cluster
administrators' tokens only (docs/debug-api.md).`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// One clock for the component and its journal.
			opts.Clock, opts.Journal = debugFlags.Setup(opts.VirtualClock)
			opts.DebugEndpointFile, opts.DebugComponent = debugFlags.EndpointFile, debugFlags.Component
			return dns.Run(ctx, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Kubeconfig, "kubeconfig", opts.Kubeconfig, "kubeconfig file with the apiserver's address and the DNS's credentials (required)")
	f.StringVar(&opts.Listen, "listen", opts.Listen, "loopback host:port answering DNS over UDP and TCP; port 0 picks a free port (the bound address is logged)")
	f.StringVar(&opts.ClusterDomain, "cluster-domain", opts.ClusterDomain, "the cluster's DNS domain, answered with authority")
	f.StringVar(&opts.ServiceIP, "service-ip", opts.ServiceIP, "cluster IP of the kube-dns Service created in kube-system, and the address of ns.dns.<cluster-domain>")
	f.IntVar(&opts.TTL, "ttl", opts.TTL, "TTL of every record in seconds, and the SOA minimum (CoreDNS's default 5; kubeadm's Corefile sets 30)")
	f.StringVar(&opts.BindAddress, "bind-address", opts.BindAddress, "loopback host:port serving /healthz, /readyz, /metrics, /debug/pprof/ and the debug API; port 0 picks a free port")
	f.BoolVar(&opts.VirtualClock, "virtual-clock", false, clusterclock.FlagHelp)
	f.BoolVar(&opts.TraceInformers, "trace-informers", false, "log each object's path through the informers (watch event, delta, store, handler) for lessons")
	debugFlags.AddFlags(f, cluster.DNSComponent)
	f.IntVarP(&opts.Verbosity, "v", "v", opts.Verbosity, "log verbosity: 4 logs every query with its answer's rcode")
	f.Var(&opts.InformerFIFO, "informer-fifo", informer.FIFOFlagHelp)
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
