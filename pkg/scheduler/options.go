package scheduler

import (
	"errors"
	"fmt"
	"kplane/pkg/debug"
	"kplane/pkg/informer"
	"log/slog"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/leaderelection"
)

// Options configure a scheduler. Build them with DefaultOptions, change
// what you need, and pass them to New or Run.
type Options struct {
	// Kubeconfig is the path of the kubeconfig to reach the apiserver with
	// (--kubeconfig). Required.
	Kubeconfig string
	// SchedulerName is the spec.schedulerName this scheduler serves
	// (--scheduler-name, default "default-scheduler"). It is also the
	// source component of the Events it records, which is how
	// `kubectl describe pod` shows who placed a pod.
	SchedulerName string

	// LeaderElect makes the scheduler take part in an election on a Lease
	// and schedule only while it holds it (--leader-elect). Informers and
	// the cache run either way, so a standby that wins starts warm.
	LeaderElect bool
	// LeaderElectResourceNamespace and LeaderElectResourceName name the
	// Lease (upstream's defaults: kube-system/kube-scheduler). A second
	// scheduler with its own schedulerName that also elects a leader must
	// use a Lease of its own.
	LeaderElectResourceNamespace string
	LeaderElectResourceName      string
	// LeaseDuration, RenewDeadline and RetryPeriod are the election's
	// timings (15 s, 10 s, 2 s, as upstream); tests shorten them.
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration

	// PodInitialBackoff and PodMaxBackoff bound how long a pod that failed
	// waits before its next attempt: 1 s after the first failure, doubling
	// per attempt up to 10 s (upstream's defaults), so a pod that cannot
	// fit does not spin the scheduling loop.
	PodInitialBackoff time.Duration
	PodMaxBackoff     time.Duration
	// PodMaxInUnschedulablePodsDuration is the longest an unschedulable
	// pod waits for a cluster event before it is tried again anyway
	// (60 s; upstream waits 5 minutes). It is the safety net for changes
	// the scheduler does not watch for.
	PodMaxInUnschedulablePodsDuration time.Duration

	// PercentageOfNodesToScore stops the search for feasible nodes once
	// this share of the cluster has been found feasible (at least 100
	// nodes), trading a perfect choice for speed in big clusters. 0 means
	// upstream's adaptive default: 50 % minus 1 % per 125 nodes, never
	// below 5 %.
	PercentageOfNodesToScore int
	// KubeAPIQPS and KubeAPIBurst are the client-side rate limit of the
	// scheduler's requests, bindings and Events included (--kube-api-qps,
	// --kube-api-burst; 0 QPS: none). Upstream defaults to 50/100; kplane's
	// default (client.DefaultComponentQPS) never throttles a local cluster.
	KubeAPIQPS   float32
	KubeAPIBurst int
	// ParallelBinds bounds the binding requests in flight (default 64).
	// Binding runs beside the scheduling loop, as upstream's binding
	// cycle does, so the loop goes on to the next pod while the apiserver
	// answers; when all slots are busy the loop waits for one.
	ParallelBinds int

	// Verbosity is --v: at 2 every bound and unschedulable pod is logged,
	// at 4 the decision log shows each node's filter result and per-plugin
	// scores for every pod.
	Verbosity int
	// TraceInformers logs every object's path through the informers — watch
	// event, delta, store update, handler call — for lessons
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
	// BindAddress is the loopback host:port of the scheduler's HTTP
	// server: /healthz, /metrics, /debug/pprof/ and the debug API
	// (--bind-address; the command's default is DefaultBindAddress,
	// kube-scheduler's port; port 0 picks a free port). Empty runs no
	// server, as in-process tests want.
	BindAddress string
	// DebugEndpointFile, when set, is where the scheduler announces its
	// debug API once it listens (see debug.Endpoint).
	DebugEndpointFile string
	// DebugComponent is the scheduler's name in its debug endpoint file
	// (--debug-component-name, default "scheduler"): what `ctl` calls it,
	// so it is set even when Journal is nil.
	DebugComponent string
	// Logger receives the scheduler's logs; nil logs text to stderr.
	Logger *slog.Logger
	// Clock drives back-off and the queue's timers; nil is the wall clock.
	Clock clock.Clock
	// VirtualClock runs the scheduler on the cluster clock (--virtual-clock): a
	// clock.Virtual that follows the offset in ConfigMap
	// kube-system/kplane-clock, which `ctl time advance` moves (see
	// pkg/clusterclock). Clock, when it is a *clock.Virtual, is the clock
	// moved (main builds it first, so that the debug journal shares it);
	// any other Clock is replaced.
	VirtualClock bool
}

// Defaults, with the upstream values they mirror.
const (
	DefaultLeaseName                         = "kube-scheduler"
	DefaultLeaseNamespace                    = "kube-system"
	DefaultPodInitialBackoff                 = 1 * time.Second  // upstream podInitialBackoffSeconds
	DefaultPodMaxBackoff                     = 10 * time.Second // upstream podMaxBackoffSeconds
	DefaultPodMaxInUnschedulablePodsDuration = 60 * time.Second // upstream: 5 min
	DefaultParallelBinds                     = 64
	DefaultBindAddress                       = "127.0.0.1:10259" // kube-scheduler's --secure-port
)

// DefaultOptions returns the options of a default scheduler, without a
// kubeconfig.
func DefaultOptions() Options {
	return Options{
		SchedulerName:                     api.DefaultSchedulerName,
		LeaderElectResourceNamespace:      DefaultLeaseNamespace,
		LeaderElectResourceName:           DefaultLeaseName,
		LeaseDuration:                     leaderelection.DefaultLeaseDuration,
		RenewDeadline:                     leaderelection.DefaultRenewDeadline,
		RetryPeriod:                       leaderelection.DefaultRetryPeriod,
		PodInitialBackoff:                 DefaultPodInitialBackoff,
		PodMaxBackoff:                     DefaultPodMaxBackoff,
		PodMaxInUnschedulablePodsDuration: DefaultPodMaxInUnschedulablePodsDuration,
		ParallelBinds:                     DefaultParallelBinds,
		InformerFIFO:                      informer.FIFODelta,
		KubeAPIQPS:                        client.DefaultComponentQPS,
		KubeAPIBurst:                      client.DefaultComponentBurst,
		DebugComponent:                    "scheduler",
	}
}

// Validate reports every problem with o at once.
func (o *Options) Validate() error {
	var errs []error
	if o.Kubeconfig == "" {
		errs = append(errs, errors.New("--kubeconfig is required"))
	}
	if o.SchedulerName == "" {
		errs = append(errs, errors.New("--scheduler-name must not be empty"))
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
	if o.KubeAPIQPS < 0 || o.KubeAPIBurst < 0 {
		errs = append(errs, fmt.Errorf("--kube-api-qps (%v) and --kube-api-burst (%d) must not be negative", o.KubeAPIQPS, o.KubeAPIBurst))
	}
	if o.PodInitialBackoff <= 0 || o.PodMaxBackoff < o.PodInitialBackoff {
		errs = append(errs, fmt.Errorf("pod back-off must satisfy 0 < initial (%v) <= max (%v)", o.PodInitialBackoff, o.PodMaxBackoff))
	}
	if o.PodMaxInUnschedulablePodsDuration <= 0 {
		errs = append(errs, fmt.Errorf("podMaxInUnschedulablePodsDuration must be positive, got %v", o.PodMaxInUnschedulablePodsDuration))
	}
	if o.PercentageOfNodesToScore < 0 || o.PercentageOfNodesToScore > 100 {
		errs = append(errs, fmt.Errorf("percentageOfNodesToScore must be between 0 and 100, got %d", o.PercentageOfNodesToScore))
	}
	if o.ParallelBinds < 1 {
		errs = append(errs, fmt.Errorf("parallelBinds must be at least 1, got %d", o.ParallelBinds))
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
