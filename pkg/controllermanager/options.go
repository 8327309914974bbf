package controllermanager

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/csrsigning"
	"kplane/pkg/controllers/hostpathprovisioner"
	"kplane/pkg/controllers/resourcequota"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
	"kplane/pkg/leaderelection"
)

// Options configure a controller-manager. Build them with DefaultOptions,
// change what you need, and pass them to New or Run.
type Options struct {
	// Kubeconfig is the path of the kubeconfig to reach the apiserver with
	// (--kubeconfig). Required.
	Kubeconfig string

	// Controllers selects the controllers to run (--controllers), with
	// kube-controller-manager's rules: "*" is every controller that is on
	// by default, "name" turns one on, "-name" turns one off; the first
	// entry that names a controller decides for it. Default ["*"].
	Controllers []string
	// ConcurrentSyncs maps a controller's name to how many keys it syncs at
	// once (--concurrent-<x>-syncs). DefaultOptions fills in every
	// registered controller's upstream default.
	ConcurrentSyncs map[string]int
	// KubeAPIQPS and KubeAPIBurst are the client-side rate limit of the
	// manager's requests, Events included (--kube-api-qps,
	// --kube-api-burst; 0 QPS: none). Upstream defaults to 20/30, which is
	// most of why its W6 takes 49.6 s; kplane's default
	// (client.DefaultComponentQPS) never throttles a local cluster.
	KubeAPIQPS   float32
	KubeAPIBurst int

	// UseServiceAccountCredentials runs each controller as its own
	// kube-system ServiceAccount (Descriptor.ServiceAccount) with a token
	// from the TokenRequest API, instead of the manager's identity
	// (--use-service-account-credentials; off by default as upstream,
	// on in clusters `ctl up` starts, as kubeadm's).
	UseServiceAccountCredentials bool

	// LeaderElect makes the manager take part in an election on a Lease
	// and run its controllers only while it holds it (--leader-elect).
	// The informers run either way, so a standby that wins starts warm.
	LeaderElect bool
	// LeaderElectResourceNamespace and LeaderElectResourceName name the
	// Lease (upstream's defaults: kube-system/kube-controller-manager).
	LeaderElectResourceNamespace string
	LeaderElectResourceName      string
	// LeaseDuration, RenewDeadline and RetryPeriod are the election's
	// timings (15 s, 10 s, 2 s, as upstream); tests shorten them.
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// Identity is this candidate's holderIdentity on the Lease. Empty
	// means upstream's "<hostname>_<uuid>"; there is no flag for it, as
	// upstream has none, but tests name their managers.
	Identity string

	// NodeMonitorGracePeriod is how long a node may go without a heartbeat
	// before the node-lifecycle controller marks it Unknown and taints it
	// unreachable (--node-monitor-grace-period; 50 s, the upstream default
	// since Kubernetes 1.32).
	NodeMonitorGracePeriod time.Duration

	// HPA holds the horizontalpodautoscaling controller's tunables
	// (--horizontal-pod-autoscaler-*), upstream's flags and defaults.
	HPA HPAOptions

	// HostPathVolumesDir is where the hostpath-provisioner controller
	// makes its volumes, one directory each (--hostpath-volumes-dir).
	// Required when that controller is selected; `ctl up` passes
	// <data-dir>/volumes. kplane's own: upstream has no such controller.
	HostPathVolumesDir string

	// ServiceAccountPrivateKeyFile is the PEM RSA key the
	// serviceaccount-token controller signs legacy token Secrets with
	// (--service-account-private-key-file; `ctl up` passes
	// <data-dir>/pki/sa.key, the apiserver's). Empty turns that controller
	// off, as upstream.
	ServiceAccountPrivateKeyFile string

	// ClusterSigningCertFile and ClusterSigningKeyFile are the PEM CA the
	// csrsigning controller issues certificates with
	// (--cluster-signing-cert-file, --cluster-signing-key-file; `ctl up`
	// passes the cluster CA in <data-dir>/pki). Empty turns that
	// controller off, as upstream.
	ClusterSigningCertFile string
	ClusterSigningKeyFile  string
	// ClusterSigningDuration is the longest validity the csrsigning
	// controller gives a certificate (--cluster-signing-duration,
	// upstream's one year).
	ClusterSigningDuration time.Duration

	// ResourceQuotaSyncPeriod is how often the resourcequota controller
	// recounts every quota (--resource-quota-sync-period, upstream's 5 m).
	ResourceQuotaSyncPeriod time.Duration

	// BindAddress is the loopback host:port of the HTTP server for
	// /metrics and /healthz (--bind-address, default 127.0.0.1:10257,
	// kube-controller-manager's port). Port 0 picks a free port; the
	// bound address is logged and returned by Addr.
	BindAddress string

	// Verbosity is --v: 4 and above log at Debug level, which shows each
	// API request and the controllers' per-key detail.
	Verbosity int
	// TraceInformers logs every object's path through the informers and
	// into the controllers' workqueues — watch event, delta, store update,
	// handler call, enqueue — for lessons (docs/informers.md).
	TraceInformers bool
	// InformerFIFO is the queue between each informer's reflector and its
	// cache (--informer-fifo): informer.FIFODelta, the default ("" too), or
	// informer.FIFOReal, upstream's default since 1.33.
	InformerFIFO informer.FIFOKind
	// Journal is the component's debug journal (see pkg/debug): its
	// informers, workqueues, decisions and writes are recorded there and
	// served by the debug API. Nil turns the debug journal off.
	Journal *debug.Journal
	// DebugEndpointFile, when set, is where the manager announces its
	// debug API (http://<BindAddress>/debug/kplane/) once it listens.
	DebugEndpointFile string
	// DebugComponent is the manager's name in its debug endpoint file
	// (--debug-component-name, default "controller-manager"; a second
	// manager is "controller-manager-2"): what `ctl` calls it, so it is
	// set even when Journal is nil.
	DebugComponent string
	// Logger receives the manager's logs; nil logs text to stderr at the
	// level --v asks for.
	Logger *slog.Logger

	// Name is the manager's component name in its logs, its client's
	// user agent ("kplane-<name>") and its journal's writes; empty is
	// "controller-manager". The cloud-controller-manager, built on this
	// package, sets "cloud-controller-manager".
	Name string
	// Registry lists the controllers this manager can run; nil is
	// kube-controller-manager's (Controllers()). The
	// cloud-controller-manager passes its own four.
	Registry []Descriptor
	// Clock drives the controllers' back-off, the informers and the
	// election; nil is the wall clock.
	Clock clock.Clock
	// VirtualClock runs the controllers on the cluster clock (--virtual-clock): a
	// clock.Virtual that follows the offset in ConfigMap
	// kube-system/kplane-clock, which `ctl time advance` moves (see
	// pkg/clusterclock). Clock, when it is a *clock.Virtual, is the clock
	// moved (main builds it first, so that the debug journal shares it);
	// any other Clock is replaced.
	VirtualClock bool
}

// Defaults, with the upstream values they mirror.
const (
	DefaultLeaseName              = "kube-controller-manager"
	DefaultLeaseNamespace         = "kube-system"
	DefaultBindAddress            = "127.0.0.1:10257" // kube-controller-manager's --secure-port
	DefaultNodeMonitorGracePeriod = 50 * time.Second  // upstream since 1.32 (40 s before)
)

// DefaultOptions returns the options of a default controller-manager,
// without a kubeconfig: every controller that is on by default, each with
// its upstream worker count.
func DefaultOptions() Options {
	syncs := map[string]int{}
	for _, d := range Controllers() {
		syncs[d.Name] = d.DefaultWorkers
	}
	return Options{
		Controllers:                  []string{"*"},
		ConcurrentSyncs:              syncs,
		KubeAPIQPS:                   client.DefaultComponentQPS,
		KubeAPIBurst:                 client.DefaultComponentBurst,
		LeaderElectResourceNamespace: DefaultLeaseNamespace,
		LeaderElectResourceName:      DefaultLeaseName,
		LeaseDuration:                leaderelection.DefaultLeaseDuration,
		RenewDeadline:                leaderelection.DefaultRenewDeadline,
		RetryPeriod:                  leaderelection.DefaultRetryPeriod,
		NodeMonitorGracePeriod:       DefaultNodeMonitorGracePeriod,
		HPA:                          DefaultHPAOptions(),
		ResourceQuotaSyncPeriod:      resourcequota.DefaultSyncPeriod,
		ClusterSigningDuration:       csrsigning.DefaultDuration,
		InformerFIFO:                 informer.FIFODelta,
		BindAddress:                  DefaultBindAddress,
		DebugComponent:               "controller-manager",
	}
}

// Validate reports every problem with o at once.
func (o *Options) Validate() error {
	var errs []error
	if o.Kubeconfig == "" {
		errs = append(errs, errors.New("--kubeconfig is required"))
	}
	selection := o.Controllers
	if o.Registry == nil {
		// kube-controller-manager's cloud controllers run in the
		// cloud-controller-manager: naming them is no mistake (New says
		// where they run).
		selection = withoutCloudControllers(selection)
	}
	if err := checkSelection(selection, o.registry()); err != nil {
		errs = append(errs, err)
	}
	for _, d := range o.registry() {
		if n, ok := o.ConcurrentSyncs[d.Name]; ok && n < 1 {
			errs = append(errs, fmt.Errorf("--%s must be at least 1, got %d", d.SyncsFlag, n))
		}
	}
	if o.KubeAPIQPS < 0 || o.KubeAPIBurst < 0 {
		errs = append(errs, fmt.Errorf("--kube-api-qps (%v) and --kube-api-burst (%d) must not be negative", o.KubeAPIQPS, o.KubeAPIBurst))
	}
	if o.LeaderElect {
		if o.LeaderElectResourceName == "" || o.LeaderElectResourceNamespace == "" {
			errs = append(errs, errors.New("leader election needs a lease name and namespace"))
		}
		if !(o.LeaseDuration > o.RenewDeadline && o.RenewDeadline > o.RetryPeriod && o.RetryPeriod > 0) {
			errs = append(errs, fmt.Errorf("leader election timings must satisfy leaseDuration (%v) > renewDeadline (%v) > retryPeriod (%v) > 0",
				o.LeaseDuration, o.RenewDeadline, o.RetryPeriod))
		}
	}
	if o.NodeMonitorGracePeriod <= 0 {
		errs = append(errs, fmt.Errorf("--node-monitor-grace-period must be positive, got %v", o.NodeMonitorGracePeriod))
	}
	errs = append(errs, o.HPA.validate()...)
	if o.ResourceQuotaSyncPeriod <= 0 {
		errs = append(errs, fmt.Errorf("--resource-quota-sync-period must be positive, got %v", o.ResourceQuotaSyncPeriod))
	}
	if o.HostPathVolumesDir == "" && slices.ContainsFunc(enabledControllers(o.Controllers, o.registry()),
		func(d Descriptor) bool { return d.Name == hostpathprovisioner.Name }) {
		errs = append(errs, fmt.Errorf("--hostpath-volumes-dir is required by the %s controller", hostpathprovisioner.Name))
	}
	if err := debug.CheckLoopback("--bind-address", o.BindAddress); err != nil {
		errs = append(errs, err)
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

// registry is the controllers this manager can run: Registry, or
// kube-controller-manager's.
func (o *Options) registry() []Descriptor {
	if o.Registry != nil {
		return o.Registry
	}
	return Controllers()
}

// name is the manager's component name: Name, or "controller-manager".
func (o *Options) name() string {
	if o.Name != "" {
		return o.Name
	}
	return "controller-manager"
}

// workers returns the worker count for controller d.
func (o *Options) workers(d Descriptor) int {
	if n, ok := o.ConcurrentSyncs[d.Name]; ok {
		return n
	}
	return d.DefaultWorkers
}

// AddLeaderElectionFlags binds the six --leader-elect* flags to o, with
// kube-controller-manager's names; the controller-manager and the
// cloud-controller-manager (whose Options embed these) both call it.
func (o *Options) AddLeaderElectionFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "run the controllers only while holding the Lease --leader-elect-resource-namespace/--leader-elect-resource-name")
	fs.StringVar(&o.LeaderElectResourceName, "leader-elect-resource-name", o.LeaderElectResourceName, "name of the leader election Lease")
	fs.StringVar(&o.LeaderElectResourceNamespace, "leader-elect-resource-namespace", o.LeaderElectResourceNamespace, "namespace of the leader election Lease")
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", o.LeaseDuration, "how long standbys wait after the last renewal before taking over")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", o.RenewDeadline, "how long the leader keeps trying to renew before it stops leading")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", o.RetryPeriod, "how often candidates try to acquire and the leader renews")
}

// SyncsFlag returns a flag value that reads and sets o.ConcurrentSyncs
// for the controller called name, so that cmd/controller-manager can bind
// one --concurrent-<x>-syncs flag per registered controller. It satisfies
// pflag.Value (and flag.Value).
func (o *Options) SyncsFlag(name string) *SyncsValue {
	if o.ConcurrentSyncs == nil {
		o.ConcurrentSyncs = map[string]int{}
	}
	return &SyncsValue{syncs: o.ConcurrentSyncs, name: name}
}

// SyncsValue is one --concurrent-<x>-syncs flag: an int stored in an
// Options' ConcurrentSyncs under one controller's name.
type SyncsValue struct {
	syncs map[string]int
	name  string
}

// String returns the current value.
func (v *SyncsValue) String() string { return strconv.Itoa(v.syncs[v.name]) }

// Set parses and stores a worker count.
func (v *SyncsValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("not a number: %q", s)
	}
	v.syncs[v.name] = n
	return nil
}

// Type names the value's type in --help.
func (v *SyncsValue) Type() string { return "int" }
