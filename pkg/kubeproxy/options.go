package kubeproxy

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"time"

	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
)

// The proxy modes: which upstream proxier's rules the node shows by
// default. All three are computed from the same model; the mode only
// decides /proxyMode and the default of /proxy/rules.
const (
	ModeIPTables = "iptables"
	ModeNFTables = "nftables"
	ModeIPVS     = "ipvs"
)

// Defaults, with the upstream values they mirror.
const (
	// DefaultMetricsBindAddress is upstream's --metrics-bind-address.
	DefaultMetricsBindAddress = "127.0.0.1:10249"
	// DefaultMinSyncPeriod is upstream's iptables minSyncPeriod: one
	// second, so a rollout's burst of EndpointSlice updates costs one sync.
	DefaultMinSyncPeriod = time.Second
	// DefaultSyncPeriod is upstream's --iptables-sync-period: a sync every
	// 30 s even when nothing changed.
	DefaultSyncPeriod = 30 * time.Second
	// DefaultServiceCIDR is the apiserver's Service range.
	DefaultServiceCIDR = "10.96.0.0/12"
)

// Options configure a kube-proxy. Build them with DefaultOptions.
type Options struct {
	// Kubeconfig is the kubeconfig to reach the apiserver with (required).
	Kubeconfig string
	// HostnameOverride is the name of the node this kube-proxy serves
	// (--hostname-override, required: kplane's nodes are not this host).
	HostnameOverride string
	// MetricsBindAddress is the loopback host:port of the HTTP server
	// (port 0 picks a free port).
	MetricsBindAddress string
	// ClusterCIDR is the pods' range (--cluster-cidr): ClusterIP traffic
	// from outside it is masqueraded. Empty: no such rule.
	ClusterCIDR string
	// ServiceCIDR is the Services' range, shown in the nftables view.
	ServiceCIDR string
	// Mode is --proxy-mode: iptables (the default), nftables or ipvs.
	Mode string
	// MinSyncPeriod and SyncPeriod bound how often the rules are
	// recomputed (see pkg/proxy/runner).
	MinSyncPeriod, SyncPeriod time.Duration
	// KubeAPIQPS and KubeAPIBurst limit the client's requests.
	KubeAPIQPS   float32
	KubeAPIBurst int
	// Verbosity is --v: 2 logs every sync, 4 every ask for one.
	Verbosity int
	// InformerFIFO is the informers' queue (--informer-fifo).
	InformerFIFO informer.FIFOKind
	// Journal is the debug journal (nil: none); DebugEndpointFile where the
	// debug API is announced; DebugComponent the name announced
	// ("kube-proxy-node1").
	Journal           *debug.Journal
	DebugEndpointFile string
	DebugComponent    string
	// TraceInformers logs each object's path through the informers.
	TraceInformers bool
	// Logger receives the logs; nil logs text to stderr.
	Logger *slog.Logger
	// Clock times syncs and session affinity; nil is the wall clock.
	Clock clock.Clock
	// VirtualClock runs on the cluster clock (--virtual-clock), which
	// `ctl time advance` moves: session affinity then expires with it.
	VirtualClock bool
}

// DefaultOptions returns the options of a default kube-proxy, without a
// kubeconfig or node name.
func DefaultOptions() Options {
	return Options{
		MetricsBindAddress: DefaultMetricsBindAddress,
		ServiceCIDR:        DefaultServiceCIDR,
		Mode:               ModeIPTables,
		MinSyncPeriod:      DefaultMinSyncPeriod,
		SyncPeriod:         DefaultSyncPeriod,
		KubeAPIQPS:         client.DefaultComponentQPS,
		KubeAPIBurst:       client.DefaultComponentBurst,
		InformerFIFO:       informer.FIFODelta,
	}
}

// Validate reports every problem with o at once.
func (o *Options) Validate() error {
	var errs []error
	if o.Kubeconfig == "" {
		errs = append(errs, errors.New("--kubeconfig is required"))
	}
	if o.HostnameOverride == "" {
		errs = append(errs, errors.New("--hostname-override is required: the name of the node this kube-proxy serves"))
	}
	switch o.Mode {
	case ModeIPTables, ModeNFTables, ModeIPVS:
	default:
		errs = append(errs, fmt.Errorf("--proxy-mode %q: must be iptables, nftables or ipvs", o.Mode))
	}
	for flag, cidr := range map[string]string{"--cluster-cidr": o.ClusterCIDR, "--service-cluster-ip-range": o.ServiceCIDR} {
		if cidr == "" {
			continue
		}
		if p, err := netip.ParsePrefix(cidr); err != nil || !p.Addr().Is4() {
			errs = append(errs, fmt.Errorf("%s %q must be an IPv4 CIDR such as 10.244.0.0/16", flag, cidr))
		}
	}
	if o.MinSyncPeriod < 0 || o.SyncPeriod <= 0 || o.MinSyncPeriod > o.SyncPeriod {
		errs = append(errs, fmt.Errorf("sync periods must satisfy 0 <= --min-sync-period (%v) <= --sync-period (%v), --sync-period > 0", o.MinSyncPeriod, o.SyncPeriod))
	}
	if o.MetricsBindAddress != "" {
		if err := debug.CheckLoopback("--metrics-bind-address", o.MetricsBindAddress); err != nil {
			errs = append(errs, err)
		}
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
