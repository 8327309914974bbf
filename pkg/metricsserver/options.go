package metricsserver

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"kplane/pkg/clock"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
)

// Defaults of cmd/metrics-server, with the upstream values they mirror.
const (
	// DefaultMetricResolution is how often the kubelets are scraped:
	// upstream's --metric-resolution default, and what the HPA's 15 s sync
	// period expects.
	DefaultMetricResolution = 15 * time.Second
	// MinMetricResolution is the shortest resolution accepted. Upstream
	// refuses less than 10 s; kplane allows shorter so that tests and
	// lessons need not wait, at the price of noisier rates.
	MinMetricResolution = time.Second
	// DefaultSecurePort is upstream's --secure-port in its manifest.
	DefaultSecurePort = 10250
	// DefaultBindAddress is where the API listens: loopback only in kplane
	// (upstream binds every interface).
	DefaultBindAddress = "127.0.0.1"
	// ComponentName names the component in logs, its journal and
	// cluster.json.
	ComponentName = "metrics-server"
)

// Options configure metrics-server. Build them with DefaultOptions,
// change what you need, and pass them to New or Run.
type Options struct {
	// Kubeconfig reaches the apiserver to follow nodes and pods
	// (--kubeconfig). Required.
	Kubeconfig string
	// BindAddress and SecurePort are where the HTTPS API listens
	// (--bind-address, --secure-port; port 0 picks a free port).
	BindAddress string
	SecurePort  int
	// TLSCertFile and TLSPrivateKeyFile are the serving certificate and
	// key (--tls-cert-file, --tls-private-key-file). Required: `ctl up`
	// issues them from the cluster CA.
	TLSCertFile       string
	TLSPrivateKeyFile string
	// ClientCAFile holds the CA whose client certificates are trusted
	// (--client-ca-file): the aggregator's, and any other caller's.
	// Required.
	ClientCAFile string
	// MetricResolution is the scrape interval (--metric-resolution).
	MetricResolution time.Duration
	// KubeletClientCertificate and KubeletClientKey are presented to the
	// kubelets (--kubelet-client-certificate, --kubelet-client-key).
	KubeletClientCertificate string
	KubeletClientKey         string
	// KubeletCertificateAuthority verifies the kubelets' serving
	// certificates (--kubelet-certificate-authority); empty skips the
	// check, as upstream's --kubelet-insecure-tls, which kplane's
	// self-signed kubelet certificates need.
	KubeletCertificateAuthority string

	// DebugAddress is the loopback host:port of the debug API and
	// /metrics (--debug-address); empty runs none.
	DebugAddress string
	// Journal is the component's debug journal; nil turns it off.
	Journal *debug.Journal
	// DebugEndpointFile, when set, is where the debug API is announced;
	// DebugComponent is the component's name there.
	DebugEndpointFile string
	DebugComponent    string
	// TraceInformers logs every object's path through the informers.
	TraceInformers bool
	// InformerFIFO is the queue between each reflector and its cache.
	InformerFIFO informer.FIFOKind
	// Logger receives the logs; nil logs text to stderr.
	Logger *slog.Logger
	// Clock times the scrapes; nil is the wall clock.
	Clock clock.Clock
	// VirtualClock runs on the cluster clock (--virtual-clock).
	VirtualClock bool
}

// DefaultOptions returns upstream's defaults, without files.
func DefaultOptions() Options {
	return Options{
		BindAddress:      DefaultBindAddress,
		SecurePort:       DefaultSecurePort,
		MetricResolution: DefaultMetricResolution,
		InformerFIFO:     informer.FIFODelta,
		DebugComponent:   ComponentName,
	}
}

// Validate reports every option that cannot work.
func (o *Options) Validate() error {
	var errs []error
	required := map[string]string{
		"--kubeconfig": o.Kubeconfig, "--tls-cert-file": o.TLSCertFile,
		"--tls-private-key-file": o.TLSPrivateKeyFile, "--client-ca-file": o.ClientCAFile,
	}
	for _, flag := range []string{"--kubeconfig", "--tls-cert-file", "--tls-private-key-file", "--client-ca-file"} {
		if required[flag] == "" {
			errs = append(errs, fmt.Errorf("%s is required", flag))
		}
	}
	if (o.KubeletClientCertificate == "") != (o.KubeletClientKey == "") {
		errs = append(errs, errors.New("--kubelet-client-certificate and --kubelet-client-key go together"))
	}
	if ip := net.ParseIP(o.BindAddress); ip == nil || !ip.IsLoopback() {
		errs = append(errs, fmt.Errorf("--bind-address %q must be a loopback address: kplane listens on this machine only", o.BindAddress))
	}
	if o.SecurePort < 0 || o.SecurePort > 65535 {
		errs = append(errs, fmt.Errorf("--secure-port %d must be between 0 and 65535", o.SecurePort))
	}
	if o.MetricResolution < MinMetricResolution {
		errs = append(errs, fmt.Errorf("--metric-resolution %s must be at least %s", o.MetricResolution, MinMetricResolution))
	}
	if o.DebugAddress != "" {
		if err := debug.CheckLoopback("--debug-address", o.DebugAddress); err != nil {
			errs = append(errs, err)
		}
	}
	if o.InformerFIFO != "" {
		if _, err := informer.ParseFIFOKind(string(o.InformerFIFO)); err != nil {
			errs = append(errs, fmt.Errorf("--informer-fifo: %w", err))
		}
	}
	return errors.Join(errs...)
}
