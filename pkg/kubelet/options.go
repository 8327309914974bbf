package kubelet

import (
	"errors"
	"fmt"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/kubelet/runtime"
)

// Options configure a kubelet process: one node, or with NodeCount many
// hollow nodes sharing one client and one pod informer.
type Options struct {
	// Kubeconfig is the path of the kubeconfig to reach the apiserver with.
	// Ignored when Client is set.
	Kubeconfig string
	// NetworkKubeconfig (--network-kubeconfig, kplane-only) is the
	// kubeconfig the simulated runtime's network reads other pods with:
	// a curl from a pod to another pod's IP or Service must see the target
	// pod wherever it runs, but the Node authorizer lets a kubelet read
	// only the pods bound to its own node. A real network needs no
	// credentials; kplane's stand-in for it has its own (ctl up writes
	// simulated-network.kubeconfig). Empty: the kubelet's own client.
	NetworkKubeconfig string
	// Client, when set, is used instead of one built from Kubeconfig (tests
	// and in-process benchmarks pass the apiserver's client); KubeAPIQPS
	// and KubeAPIBurst do not apply to it.
	Client *client.Client
	// KubeAPIQPS and KubeAPIBurst are the client-side rate limit of the
	// process's requests (--kube-api-qps, --kube-api-burst; 0 QPS: none).
	// Upstream's kubelet defaults to 50/100; kplane's default
	// (client.DefaultComponentQPS) never throttles a local cluster.
	KubeAPIQPS   float32
	KubeAPIBurst int
	// EventRecordQPS and EventBurst limit the Events the process writes
	// (--event-qps, --event-burst; 0 QPS: no limit) with a token bucket of
	// their own, as upstream's eventRecordQPS and eventBurst do, with
	// upstream's defaults of 50/s and bursts of 100. Events are
	// best-effort: when many pods start at once, their Pulled, Created and
	// Started events (three writes per pod) wait for tokens instead of
	// tripling the writes the apiserver takes while it also creates, binds
	// and updates the pods. The limits are the process's: hollow nodes share
	// them as they share one client (kubemark gives each hollow node its
	// own), with at least one event per node every 5 s (see eventQPS).
	EventRecordQPS float32
	EventBurst     int

	// NodeName is the node's name (single-node mode).
	NodeName string
	// NodeCount > 0 simulates that many nodes named NodeNamePrefix+"1" …
	// NodeNamePrefix+"N" in this one process, like upstream's hollow nodes;
	// NodeName must then be empty.
	NodeCount int
	// NodeNamePrefix names the nodes of NodeCount ("hollow-").
	NodeNamePrefix string

	// CPU, Memory, EphemeralStorage and Pods are each node's capacity (and
	// allocatable: nothing is reserved for the system).
	CPU, Memory, EphemeralStorage string
	Pods                          int

	// Runtime is the container runtime: "simulated" (default) or "process".
	Runtime string
	// NewRuntime, when set, builds each node's runtime instead of looking
	// Runtime up in the runtime registry (tests inject fakes this way).
	NewRuntime func(cfg runtime.Config) (runtime.Runtime, error)

	// RegisterWithTaints are put on the node when it is first registered
	// (--register-with-taints key=value:Effect,…).
	RegisterWithTaints []api.Taint
	// NodeLabels are added to the node's labels at registration
	// (--node-labels k=v,…), e.g. node-role.kubernetes.io/control-plane="".
	NodeLabels map[string]string
	// PodCIDR is the node's pod range when the node object has none
	// (--pod-cidr). With NodeCount, node i gets the i-th block of the same
	// size starting here. When neither the node nor the flag names one, the
	// kubelet picks a /24 in 10.64.0.0/10 from a hash of the node name.
	PodCIDR string
	// NodeIP is the node's InternalIP and every pod's hostIP (--node-ip,
	// default 127.0.0.1, where every node of `ctl up` lives). The
	// apiserver dials the kubelet's server there, so a kubelet on another
	// host or network namespace names its own address, which its server
	// must listen on (Address).
	NodeIP string
	// Address is the IP the kubelet's HTTPS server listens on (upstream's
	// --address, whose default is 0.0.0.0; kplane's is 127.0.0.1, or
	// NodeIP when that is not loopback: see DefaultAddress). Its
	// self-signed serving certificate names it and NodeIP. Validate
	// refuses a loopback Address with a NodeIP that is not: the apiserver
	// could never reach that kubelet.
	Address string
	// PodManifestPath is the directory of static pod manifests ("" = none).
	PodManifestPath string
	// FileCheckFrequency is how often the manifest directory is reread
	// (upstream --file-check-frequency, 20 s).
	FileCheckFrequency time.Duration

	// NodeStatusUpdateFrequency is how often the kubelet computes its node's
	// status; a change is written at once. NodeStatusReportFrequency is how
	// often an unchanged status is written anyway. Upstream's defaults are
	// 10 s and 5 min: since the node Lease is the heartbeat, the Node object
	// itself is only rewritten when something changes or every 5 minutes.
	NodeStatusUpdateFrequency time.Duration
	NodeStatusReportFrequency time.Duration
	// NodeLeaseDurationSeconds is the Lease's leaseDurationSeconds (40), and
	// NodeLeaseRenewInterval how often it is renewed (10 s, a quarter of the
	// duration, as upstream).
	NodeLeaseDurationSeconds int32
	NodeLeaseRenewInterval   time.Duration

	// BackOffInitial and BackOffMax bound the CrashLoopBackOff delay:
	// 10 s doubling to 5 min, reset once a container ran 10 min (twice
	// BackOffMax) since its last restart. Tests shorten them.
	BackOffInitial, BackOffMax time.Duration
	// StatusBatchDelay is how long a pod's status change waits before it is
	// written, so that a burst of changes (ContainerCreating → Running →
	// Ready) becomes one write.
	StatusBatchDelay time.Duration

	// KubeletPort is the port reported in each node's
	// status.daemonEndpoints.kubeletEndpoint (0: no server). When Server is
	// set, the port it returns replaces this.
	KubeletPort int32
	// Server, when set, starts the kubelet's HTTPS server (logs for
	// `kubectl logs`) once the process's nodes exist; see ServerFunc.
	// cmd/kubelet sets it to package server's logs server.
	Server ServerFunc

	// Clock is what the kubelet reads the time from and waits on: Lease
	// renewals, node status periods, pod status batching, back-off,
	// probe schedules, usage reports and the simulated runtime's
	// containers. nil is the wall clock; tests pass a clock.Fake and step
	// it. The process runtime stays on the wall clock (see
	// runtime.Config.Clock).
	Clock clock.Clock
	// VirtualClock runs the kubelet on the cluster clock (--virtual-clock):
	// a clock.Virtual that follows the offset in ConfigMap
	// kube-system/kplane-clock, which `ctl time advance` moves (see
	// pkg/clusterclock). Clock, when it is a *clock.Virtual, is the clock
	// moved (main builds it first, so that the debug journal shares it);
	// any other Clock is replaced.
	VirtualClock bool

	// ClusterDNS is the cluster DNS Service's IP (--cluster-dns, kube-dns's
	// 10.96.0.10), the nameserver of a ClusterFirst pod's
	// /etc/resolv.conf. Like every cluster IP it is a label: nothing dials
	// it. ClusterDomain is the DNS domain (--cluster-domain, cluster.local).
	ClusterDNS    string
	ClusterDomain string
	// DNSAddress is where the cluster DNS really answers (--dns-address,
	// a loopback host:port): what a pod's look-ups through ClusterDNS
	// reach in kplane. Empty: the pods' look-ups fail as without a DNS.
	DNSAddress string
	// KubeProxyAddress is the loopback host:port of this node's kube-proxy
	// (--kube-proxy-address), asked which endpoint a connection to a
	// Service IP would reach. Empty: no kube-proxy runs on the node.
	KubeProxyAddress string
	// CloudProvider is "" or "external" (--cloud-provider): with external
	// the node registers with the node.cloudprovider.kubernetes.io/uninitialized
	// taint, which the cloud-controller-manager removes, as upstream.
	CloudProvider string

	// Logger receives the kubelet's logs; nil means slog.Default().
	Logger *slog.Logger
	// TraceInformers logs every pod's path through the kubelet's informer —
	// watch event, delta, store update, handler call — for lessons
	// (docs/informers.md).
	TraceInformers bool
	// InformerFIFO is the queue between each informer's reflector and its
	// cache (--informer-fifo): informer.FIFODelta, the default ("" too), or
	// informer.FIFOReal, upstream's default since 1.33.
	InformerFIFO informer.FIFOKind
	// Journal is the component's debug journal (see pkg/debug): its
	// informers, workqueues, decisions and writes are recorded there and
	// served by the debug API. Nil turns the debug journal off.
	Journal *debug.Journal
	// DebugAddress is the loopback host:port of the process's debug
	// listener: /healthz, /metrics, /debug/pprof/ and the debug API
	// (--debug-address; the command's default is DefaultDebugAddress).
	// Empty runs no listener, as in-process tests want.
	DebugAddress string
	// DebugEndpointFile, when set, is where the process announces its
	// debug API once it listens (see debug.Endpoint).
	DebugEndpointFile string
	// DebugComponent is the process's name in its debug endpoint file
	// (--debug-component-name; the command's default is
	// DefaultDebugComponent): what `ctl` calls it, so it is set even when
	// Journal is nil.
	DebugComponent string
}

// DefaultDebugComponent is the process's name when --debug-component-name
// is not given: "kubelet-" and its first node's name.
func (o *Options) DefaultDebugComponent() string {
	if o.NodeName != "" {
		return "kubelet-" + o.NodeName
	}
	return "kubelet-" + o.NodeNamePrefix + "1"
}

// Upstream defaults the kubelet mirrors.
const (
	// defaultNodeLeaseDurationSeconds is upstream's nodeLeaseDurationSeconds.
	defaultNodeLeaseDurationSeconds = 40
	// defaultBackOffInitial and defaultBackOffMax are upstream's container
	// restart back-off (backOffPeriod and MaxContainerBackOff).
	defaultBackOffInitial = 10 * time.Second
	defaultBackOffMax     = 5 * time.Minute
	// defaultEventRecordQPS and defaultEventBurst are upstream's
	// eventRecordQPS and eventBurst.
	defaultEventRecordQPS = 50
	defaultEventBurst     = 100
)

// DefaultOptions returns the options of an upstream-like node with 4 CPUs,
// 8 GiB of memory and room for 110 pods, running the simulated runtime.
func DefaultOptions() Options {
	return Options{
		NodeNamePrefix:            "hollow-",
		InformerFIFO:              informer.FIFODelta,
		CPU:                       "4",
		Memory:                    "8Gi",
		EphemeralStorage:          "100Gi",
		Pods:                      110,
		Runtime:                   runtime.SimulatedName,
		NodeIP:                    "127.0.0.1",
		Address:                   "127.0.0.1",
		KubeAPIQPS:                client.DefaultComponentQPS,
		KubeAPIBurst:              client.DefaultComponentBurst,
		EventRecordQPS:            defaultEventRecordQPS,
		EventBurst:                defaultEventBurst,
		FileCheckFrequency:        20 * time.Second,
		NodeStatusUpdateFrequency: 10 * time.Second,
		NodeStatusReportFrequency: 5 * time.Minute,
		NodeLeaseDurationSeconds:  defaultNodeLeaseDurationSeconds,
		NodeLeaseRenewInterval:    10 * time.Second,
		BackOffInitial:            defaultBackOffInitial,
		BackOffMax:                defaultBackOffMax,
		StatusBatchDelay:          50 * time.Millisecond,
		ClusterDNS:                "10.96.0.10",
		ClusterDomain:             "cluster.local",
	}
}

// CloudProviderExternal is --cloud-provider's one value: the cloud is the
// cloud-controller-manager's business.
const CloudProviderExternal = "external"

// Validate reports every problem with the options at once.
func (o *Options) Validate() error {
	var errs []error
	if o.Client == nil && o.Kubeconfig == "" {
		errs = append(errs, errors.New("--kubeconfig is required"))
	}
	switch {
	case o.NodeCount < 0:
		errs = append(errs, errors.New("--node-count must not be negative"))
	case o.NodeCount > 0 && o.NodeName != "":
		errs = append(errs, errors.New("--node-name and --node-count are mutually exclusive"))
	case o.NodeCount > 0 && o.NodeNamePrefix == "":
		errs = append(errs, errors.New("--node-name-prefix is required with --node-count"))
	case o.NodeCount == 0 && o.NodeName == "":
		errs = append(errs, errors.New("--node-name is required"))
	}
	for _, q := range []struct{ flag, value string }{{"--cpu", o.CPU}, {"--memory", o.Memory}, {"--ephemeral-storage", o.EphemeralStorage}} {
		if _, err := api.ParseQuantity(q.value); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", q.flag, err))
		}
	}
	if o.Pods <= 0 {
		errs = append(errs, errors.New("--pods must be positive"))
	}
	for _, l := range []struct {
		name  string
		qps   float32
		burst int
	}{{"--kube-api", o.KubeAPIQPS, o.KubeAPIBurst}, {"--event", o.EventRecordQPS, o.EventBurst}} {
		if l.qps < 0 || l.burst < 0 {
			errs = append(errs, fmt.Errorf("%s-qps (%v) and %s-burst (%d) must not be negative", l.name, l.qps, l.name, l.burst))
		}
	}
	if o.NewRuntime == nil && !slices.Contains(runtime.Names(), o.Runtime) {
		errs = append(errs, fmt.Errorf("--runtime %q: must be one of %v", o.Runtime, runtime.Names()))
	}
	if o.PodCIDR != "" {
		if p, err := netip.ParsePrefix(o.PodCIDR); err != nil || !p.Addr().Is4() || p.Bits() > 30 {
			errs = append(errs, fmt.Errorf("--pod-cidr %q: must be an IPv4 CIDR of at least 4 addresses", o.PodCIDR))
		}
	}
	if _, err := netip.ParseAddr(o.NodeIP); err != nil {
		errs = append(errs, fmt.Errorf("--node-ip %q: %w", o.NodeIP, err))
	}
	if o.Address != "" {
		if _, err := netip.ParseAddr(o.Address); err != nil {
			errs = append(errs, fmt.Errorf("--address %q: %w", o.Address, err))
		}
	}
	if nodeIP, err := netip.ParseAddr(o.NodeIP); err == nil && !nodeIP.IsLoopback() {
		if addr, err := netip.ParseAddr(o.Address); o.Address == "" || (err == nil && addr.IsLoopback()) {
			errs = append(errs, fmt.Errorf("--address %q is loopback, where the apiserver cannot reach a kubelet whose --node-ip is %s: "+
				"leave --address out (it then defaults to --node-ip) or give one the node IP is served on", o.Address, o.NodeIP))
		}
	}
	if o.CloudProvider != "" && o.CloudProvider != CloudProviderExternal {
		errs = append(errs, fmt.Errorf("--cloud-provider %q: must be empty or %q (kplane has no in-tree cloud providers, as upstream since 1.31)",
			o.CloudProvider, CloudProviderExternal))
	}
	for _, d := range []struct {
		name  string
		value time.Duration
	}{
		{"file check frequency", o.FileCheckFrequency}, {"node status update frequency", o.NodeStatusUpdateFrequency},
		{"node status report frequency", o.NodeStatusReportFrequency}, {"node lease renew interval", o.NodeLeaseRenewInterval},
		{"initial back-off", o.BackOffInitial}, {"maximum back-off", o.BackOffMax},
	} {
		if d.value <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive", d.name))
		}
	}
	if o.NodeLeaseDurationSeconds <= 0 {
		errs = append(errs, errors.New("node lease duration must be positive"))
	}
	if o.InformerFIFO != "" {
		if _, err := informer.ParseFIFOKind(string(o.InformerFIFO)); err != nil {
			errs = append(errs, fmt.Errorf("--informer-fifo: %w", err))
		}
	}
	return errors.Join(errs...)
}

// nodeNames lists the nodes this process simulates.
func (o *Options) nodeNames() []string {
	if o.NodeCount == 0 {
		return []string{o.NodeName}
	}
	names := make([]string, o.NodeCount)
	for i := range names {
		names[i] = fmt.Sprintf("%s%d", o.NodeNamePrefix, i+1)
	}
	return names
}

// ParseTaints reads --register-with-taints: "key=value:Effect,key:Effect".
func ParseTaints(s string) ([]api.Taint, error) {
	var taints []api.Taint
	for _, spec := range splitList(s) {
		keyValue, effect, ok := strings.Cut(spec, ":")
		if !ok {
			return nil, fmt.Errorf("invalid taint %q: want key[=value]:Effect", spec)
		}
		key, value, _ := strings.Cut(keyValue, "=")
		switch e := api.TaintEffect(effect); e {
		case api.TaintEffectNoSchedule, api.TaintEffectPreferNoSchedule, api.TaintEffectNoExecute:
		default:
			return nil, fmt.Errorf("invalid taint %q: effect must be NoSchedule, PreferNoSchedule or NoExecute", spec)
		}
		if key == "" {
			return nil, fmt.Errorf("invalid taint %q: empty key", spec)
		}
		taints = append(taints, api.Taint{Key: key, Value: value, Effect: api.TaintEffect(effect)})
	}
	return taints, nil
}

// ParseLabels reads --node-labels: "k=v,k2=v2" (a value may be empty).
func ParseLabels(s string) (map[string]string, error) {
	labels := map[string]string{}
	for _, kv := range splitList(s) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("invalid label %q: want key=value", kv)
		}
		labels[k] = v
	}
	return labels, nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// DefaultAddress is the --address a kubelet listens on when none is given:
// loopback, where every node of `ctl up` lives, unless nodeIP (--node-ip)
// is another address — the one the apiserver will dial.
func DefaultAddress(nodeIP string) string {
	if ip, err := netip.ParseAddr(nodeIP); err == nil && !ip.IsLoopback() {
		return ip.String()
	}
	return "127.0.0.1"
}
