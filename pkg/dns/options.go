package dns

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"

	"kplane/pkg/clock"
	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
)

// Defaults of cmd/dns, with the upstream values they mirror.
const (
	// DefaultListen is where the DNS answers by default. CoreDNS listens
	// on port 53, which only root may bind; kplane's DNS runs as the
	// user, on loopback (`ctl up` picks a free port and passes it).
	DefaultListen = "127.0.0.1:1053"
	// DefaultClusterDomain is the cluster's DNS domain (kubelet's
	// --cluster-domain, kubeadm's networking.dnsDomain).
	DefaultClusterDomain = "cluster.local"
	// DefaultServiceIP is the kube-dns Service's cluster IP: kubeadm
	// takes the tenth address of the service range 10.96.0.0/12. A label
	// a pod's resolv.conf names; never dialled.
	DefaultServiceIP = "10.96.0.10"
	// DefaultBindAddress serves health, readiness, metrics and the debug
	// API; 9153 is the port of CoreDNS's prometheus plugin.
	DefaultBindAddress = "127.0.0.1:9153"
)

// Options configure the DNS component. Build them with DefaultOptions,
// change what you need, and pass them to New or Run.
type Options struct {
	// Kubeconfig is the path of the kubeconfig to reach the apiserver with
	// (--kubeconfig). Required.
	Kubeconfig string
	// Listen is the loopback host:port answering DNS over UDP and TCP
	// (--listen; port 0 picks a free one, logged at start).
	Listen string
	// ClusterDomain is the zone answered (--cluster-domain).
	ClusterDomain string
	// ServiceIP is the cluster IP of the kube-dns Service the DNS ensures
	// in kube-system, and the address of the zone's name server
	// ns.dns.<zone> (--service-ip).
	ServiceIP string
	// TTL is every record's TTL in seconds and the SOA's minimum (--ttl,
	// CoreDNS's default 5).
	TTL int
	// BindAddress is the loopback host:port of the HTTP server: /healthz,
	// /readyz, /metrics and the debug API (--bind-address; port 0 picks a
	// free port). Empty runs no server, as in-process tests want.
	BindAddress string

	// Verbosity is --v: at 4 every query is logged.
	Verbosity int
	// TraceInformers logs every object's path through the informers.
	TraceInformers bool
	// InformerFIFO is the queue between each informer's reflector and its
	// cache (--informer-fifo).
	InformerFIFO informer.FIFOKind
	// Journal is the component's debug journal; nil turns it off.
	Journal *debug.Journal
	// DebugEndpointFile, when set, is where the DNS announces its debug
	// API once it listens; DebugComponent is its name there.
	DebugEndpointFile string
	DebugComponent    string
	// Logger receives the logs; nil logs text to stderr.
	Logger *slog.Logger
	// Clock drives the informers and stamps the SOA serial; nil is the
	// wall clock.
	Clock clock.Clock
	// VirtualClock runs the DNS on the cluster clock (--virtual-clock),
	// as every component of a `ctl up --virtual-clock` cluster does.
	VirtualClock bool
}

// DefaultOptions returns the options of a default DNS, without a
// kubeconfig.
func DefaultOptions() Options {
	return Options{
		Listen:         DefaultListen,
		ClusterDomain:  DefaultClusterDomain,
		ServiceIP:      DefaultServiceIP,
		TTL:            DefaultTTL,
		InformerFIFO:   informer.FIFODelta,
		DebugComponent: cluster.DNSComponent,
	}
}

// Validate reports every option that cannot work.
func (o *Options) Validate() error {
	var errs []error
	if o.Kubeconfig == "" {
		errs = append(errs, errors.New("--kubeconfig is required"))
	}
	if err := debug.CheckLoopback("--listen", o.Listen); err != nil {
		errs = append(errs, err)
	}
	if o.BindAddress != "" {
		if err := debug.CheckLoopback("--bind-address", o.BindAddress); err != nil {
			errs = append(errs, err)
		}
	}
	domain := strings.TrimSuffix(o.ClusterDomain, ".")
	if domain == "" || strings.Contains(domain, "..") || strings.ContainsAny(domain, " /_") {
		errs = append(errs, fmt.Errorf("--cluster-domain %q must be a DNS domain such as cluster.local", o.ClusterDomain))
	}
	if _, err := netip.ParseAddr(o.ServiceIP); err != nil {
		errs = append(errs, fmt.Errorf("--service-ip %q must be an IP address: %w", o.ServiceIP, err))
	}
	if o.TTL < 0 || o.TTL > 3600 {
		// CoreDNS's kubernetes plugin accepts 0 to 3600.
		errs = append(errs, fmt.Errorf("--ttl %d must be between 0 and 3600 seconds", o.TTL))
	}
	if o.Verbosity < 0 {
		errs = append(errs, fmt.Errorf("--v must not be negative, got %d", o.Verbosity))
	}
	if o.InformerFIFO != "" {
		if _, err := informer.ParseFIFOKind(string(o.InformerFIFO)); err != nil {
			errs = append(errs, fmt.Errorf("--informer-fifo: %w", err))
		}
	}
	return errors.Join(errs...)
}
