// Command metrics-server serves the resource metrics API,
// metrics.k8s.io/v1beta1, from the kubelets' /metrics/resource, as
// kubernetes-sigs/metrics-server does. See pkg/metricsserver and
// docs/metrics-server.md.
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
	"kplane/pkg/metricsserver"
)

func main() {
	opts := metricsserver.DefaultOptions()
	var debugFlags debug.Flags
	var verbosity int
	cmd := &cobra.Command{
		Use:   "metrics-server --kubeconfig FILE --tls-cert-file FILE --tls-private-key-file FILE --client-ca-file FILE",
		Short: "Serve the resource metrics API from the kubelets' figures",
		Long: `metrics-server scrapes GET /metrics/resource from every Ready node's kubelet
every --metric-resolution and serves what it found as metrics.k8s.io/v1beta1:

  /apis/metrics.k8s.io/v1beta1/nodes[/NAME]                     NodeMetrics
  /apis/metrics.k8s.io/v1beta1/namespaces/NS/pods[/NAME]        PodMetrics
  /apis/metrics.k8s.io/v1beta1/pods                             PodMetrics, all namespaces

CPU is the rate between a node's or container's last two samples, memory its
last working set; something scraped once has no metrics yet. The apiserver
reaches it through the APIService v1beta1.metrics.k8s.io, which is how
` + "`kubectl top`" + ` and the horizontal pod autoscaler find it.

It listens on --bind-address:--secure-port (loopback only) over HTTPS and
serves only clients presenting a certificate of --client-ca-file; the
apiserver's aggregator names the user it proxies for in X-Remote-User.
/healthz, /livez and /readyz need no certificate.`,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			level := slog.LevelInfo
			if verbosity >= 4 {
				level = slog.LevelDebug
			}
			opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// One clock for the component and its journal.
			opts.Clock, opts.Journal = debugFlags.Setup(opts.VirtualClock)
			opts.DebugEndpointFile, opts.DebugComponent = debugFlags.EndpointFile, debugFlags.Component
			return metricsserver.Run(ctx, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Kubeconfig, "kubeconfig", opts.Kubeconfig, "kubeconfig file with the apiserver's address and metrics-server's credentials (required)")
	f.StringVar(&opts.BindAddress, "bind-address", opts.BindAddress, "loopback IP address the HTTPS API listens on")
	f.IntVar(&opts.SecurePort, "secure-port", opts.SecurePort, "port of the HTTPS API; 0 picks a free port (the bound address is logged)")
	f.StringVar(&opts.TLSCertFile, "tls-cert-file", opts.TLSCertFile, "serving certificate (PEM), for example one the cluster CA signed for metrics-server.kube-system.svc (required)")
	f.StringVar(&opts.TLSPrivateKeyFile, "tls-private-key-file", opts.TLSPrivateKeyFile, "key of --tls-cert-file (required)")
	f.StringVar(&opts.ClientCAFile, "client-ca-file", opts.ClientCAFile, "CA bundle whose client certificates are accepted; the aggregator's must be among them (required)")
	f.DurationVar(&opts.MetricResolution, "metric-resolution", opts.MetricResolution, "how often the kubelets are scraped (upstream's default 15s; at least 1s here, 10s upstream)")
	f.StringVar(&opts.KubeletClientCertificate, "kubelet-client-certificate", opts.KubeletClientCertificate, "client certificate presented to the kubelets")
	f.StringVar(&opts.KubeletClientKey, "kubelet-client-key", opts.KubeletClientKey, "key of --kubelet-client-certificate")
	f.StringVar(&opts.KubeletCertificateAuthority, "kubelet-certificate-authority", opts.KubeletCertificateAuthority, "CA verifying the kubelets' serving certificates; empty skips the check, as upstream's --kubelet-insecure-tls")
	f.StringVar(&opts.DebugAddress, "debug-address", opts.DebugAddress, "loopback host:port serving /metrics, /debug/pprof/ and the debug API over HTTP; empty serves none, port 0 picks a free port")
	f.BoolVar(&opts.VirtualClock, "virtual-clock", false, clusterclock.FlagHelp)
	f.BoolVar(&opts.TraceInformers, "trace-informers", false, "log each object's path through the informers (watch event, delta, store, handler) for lessons")
	f.IntVarP(&verbosity, "v", "v", 0, "log verbosity: 4 logs every scrape round")
	f.Var(&opts.InformerFIFO, "informer-fifo", informer.FIFOFlagHelp)
	debugFlags.AddFlags(f, metricsserver.ComponentName)
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
