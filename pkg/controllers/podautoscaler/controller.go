// Package podautoscaler is the horizontal pod autoscaler controller: every
// sync period (15 s) it reads each HorizontalPodAutoscaler's target through
// the target's scale subresource, measures the target's pods through the
// resource metrics API (metrics.k8s.io, served by metrics-server), computes
// the replica count that brings each metric to its target, and writes that
// count back through the scale subresource — so it scales a Deployment,
// ReplicaSet, StatefulSet or ReplicationController the same way, as
// upstream's pkg/controller/podautoscaler/horizontal.go does.
//
// The steps of one sync, each in its own file:
//
//   - sync.go: read the scale, decide what the metrics say, normalize,
//     write the scale and the HPA's status (reconcileAutoscaler upstream);
//   - metric_specs.go: one metric spec → a replica proposal and a status;
//   - replica_calculator.go: the arithmetic of one metric (usage ratio,
//     tolerance, missing and unready pods);
//   - normalize.go: stabilization windows and the behavior's rate
//     policies, then min and max;
//   - metrics.go: where the figures come from;
//   - decision.go: the calculation, for `ctl why hpa/<name>`.
//
// Time is the controller's clock (the cluster's virtual clock under
// `ctl up --virtual-clock`), so `ctl time advance 5m` steps over the
// scale-down stabilization window. See docs/controllers/horizontalpodautoscaling.md.
package podautoscaler

import (
	"context"
	"log/slog"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's --controllers name, upstream's.
const Name = "horizontalpodautoscaling"

// EventSource is the source.component of its Events, upstream's.
const EventSource = "horizontal-pod-autoscaler"

// DefaultWorkers is upstream's --concurrent-horizontal-pod-autoscaler-syncs.
const DefaultWorkers = 5

// Upstream kube-controller-manager's defaults for the HPA flags.
const (
	// DefaultSyncPeriod: every HPA is reconciled this often
	// (--horizontal-pod-autoscaler-sync-period).
	DefaultSyncPeriod = 15 * time.Second
	// DefaultDownscaleStabilization: scaling down takes the highest
	// recommendation of this window (--horizontal-pod-autoscaler-downscale-stabilization).
	DefaultDownscaleStabilization = 5 * time.Minute
	// DefaultTolerance: a usage ratio within 1 ± this changes nothing
	// (--horizontal-pod-autoscaler-tolerance).
	DefaultTolerance = 0.1
	// DefaultCPUInitializationPeriod: a pod's CPU figures are suspect this
	// long after it starts (--horizontal-pod-autoscaler-cpu-initialization-period).
	DefaultCPUInitializationPeriod = 5 * time.Minute
	// DefaultInitialReadinessDelay: a Ready flip this soon after the start
	// still counts as starting (--horizontal-pod-autoscaler-initial-readiness-delay).
	DefaultInitialReadinessDelay = 30 * time.Second
)

// Options configure the controller; zero values take upstream's defaults.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock drives the sync period, stabilization windows and policy
	// periods; nil is the wall clock.
	Clock clock.Clock
	// Metrics is where figures come from; nil reads metrics.k8s.io
	// through the client.
	Metrics MetricsClient
	// Scales reads and writes the targets' scale subresource; nil is the
	// client.
	Scales ScaleClient
	// Tunables are the flag-driven settings; a zero field is upstream's
	// default.
	Tunables
}

// Tunables are the controller's five settings, kube-controller-manager's
// --horizontal-pod-autoscaler-* flags (bound in pkg/controllermanager);
// DefaultTunables has upstream's values.
type Tunables struct {
	// SyncPeriod: how often every HPA is reconciled (15s).
	SyncPeriod time.Duration
	// DownscaleStabilization: scaling down takes the highest
	// recommendation of this window (5m).
	DownscaleStabilization time.Duration
	// Tolerance: a usage ratio within 1 ± this changes nothing (0.1).
	Tolerance float64
	// CPUInitializationPeriod: a started pod's CPU figures are suspect
	// this long (5m).
	CPUInitializationPeriod time.Duration
	// InitialReadinessDelay: a Ready flip this soon after a pod's start
	// still counts as starting (30s).
	InitialReadinessDelay time.Duration
}

// DefaultTunables returns upstream's defaults.
func DefaultTunables() Tunables {
	return Tunables{}.withDefaults()
}

// withDefaults fills the zero (or negative) fields of t with upstream's
// defaults.
func (t Tunables) withDefaults() Tunables {
	if t.SyncPeriod <= 0 {
		t.SyncPeriod = DefaultSyncPeriod
	}
	if t.DownscaleStabilization <= 0 {
		t.DownscaleStabilization = DefaultDownscaleStabilization
	}
	if t.Tolerance <= 0 {
		t.Tolerance = DefaultTolerance
	}
	if t.CPUInitializationPeriod <= 0 {
		t.CPUInitializationPeriod = DefaultCPUInitializationPeriod
	}
	if t.InitialReadinessDelay <= 0 {
		t.InitialReadinessDelay = DefaultInitialReadinessDelay
	}
	return t
}

// withDefaults fills the zero fields of o.
func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	o.Tunables = o.Tunables.withDefaults()
	return o
}

// ScaleClient reads and writes a workload's scale subresource, as
// upstream's scale client does for the HPA: any kind with one looks the
// same. *client.Client is one.
type ScaleClient interface {
	GetScale(ctx context.Context, res client.Resource, namespace, name string) (*api.Scale, error)
	UpdateScale(ctx context.Context, res client.Resource, namespace string, scale *api.Scale) (*api.Scale, error)
}

// Controller reconciles HorizontalPodAutoscalers. Build it with New, run it
// with Run.
type Controller struct {
	client     *client.Client
	recorder   events.EventRecorder
	log        *slog.Logger
	clock      clock.Clock
	metrics    MetricsClient
	scales     ScaleClient
	syncPeriod time.Duration
	calc       calculatorOptions
	// normalizer remembers recommendations and scale events per HPA.
	normalizer *normalizer
	// decisions records each calculation (decision.go).
	decisions *controllerutil.DecisionLog

	hpas   *informer.Lister[*api.HorizontalPodAutoscaler]
	pods   *informer.Lister[*api.Pod]
	synced []func() bool

	// queue holds HPA keys. Each sync re-adds its key after the sync
	// period, so every HPA is reconciled every period whether or not
	// anything changed (the metrics change without any object changing).
	queue *workqueue.Queue[string]
}

// New builds the controller and registers its handlers on the HPA and pod
// informers of informers; the caller starts the factory.
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	opts = opts.withDefaults()
	metrics := opts.Metrics
	if metrics == nil {
		metrics = ResourceMetricsClient{Client: c}
	}
	scales := opts.Scales
	if scales == nil {
		scales = c
	}
	ctrl := &Controller{
		scales:     scales,
		client:     c,
		recorder:   recorder,
		log:        opts.Logger.With("controller", Name),
		clock:      opts.Clock,
		metrics:    metrics,
		syncPeriod: opts.SyncPeriod,
		calc: calculatorOptions{scaleUpTolerance: opts.Tolerance, scaleDownTolerance: opts.Tolerance, cpuInitializationPeriod: opts.CPUInitializationPeriod,
			initialReadinessDelay: opts.InitialReadinessDelay},
		normalizer: newNormalizer(opts.DownscaleStabilization),
		decisions:  controllerutil.NewDecisionLog(informers.Journal(), Name, "horizontalpodautoscalers.autoscaling"),
		queue:      controllerutil.NewQueue(Name, opts.Clock, informers),
	}
	hpas := informers.HorizontalPodAutoscalers()
	pods := informers.Pods()
	ctrl.hpas = hpas.Lister()
	ctrl.pods = pods.Lister()
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: hpas.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.hpaAdded,
			UpdateFunc: ctrl.hpaUpdated,
			DeleteFunc: ctrl.hpaDeleted,
		}},
		// The pods are read from the cache only; no handler.
		controllerutil.Handlers{Informer: pods.Informer(), Handler: informer.ResourceEventHandlerFuncs{}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the caches, then reconciles HPAs with workers goroutines
// until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	c.log.Info("starting controller", "workers", workers, "syncPeriod", c.syncPeriod)
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}
