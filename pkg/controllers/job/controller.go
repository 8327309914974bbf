// Package job is the Job controller: it runs a Job's pods until enough of
// them succeed, retrying failures with an exponential back-off up to
// backoffLimit, stops them when the Job is suspended or passes its
// activeDeadlineSeconds, reports progress in status and conditions, and
// deletes a finished Job once its ttlSecondsAfterFinished has passed (the
// ttl-after-finished controller's job, done here).
//
// The flow: an informer event (a Job added or changed, one of its pods
// created, finished or deleted) enqueues the Job's key — handlers.go; a
// worker calls sync(key) — sync.go — which claims the Job's pods, counts
// the finished ones through the batch.kubernetes.io/job-tracking finalizer
// and status.uncountedTerminatedPods (tracking.go), asks nextStep (step.go)
// what to do, creates or deletes pods through PodControl, writes the status
// and records the events. A second queue removes the finalizer from pods
// whose Job is gone (orphans.go). See docs/controllers/job.md.
package job

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's name as --controllers spells it; its workqueue
// and its logs carry it too.
const Name = "job"

// OrphanQueueName names the queue of pods whose tracking finalizer must go
// because their Job is gone (upstream's "job_orphan_pod").
const OrphanQueueName = "job_orphan_pod"

// Options configure the controller.
type Options struct {
	Logger *slog.Logger // nil → slog.Default()
	Clock  clock.Clock  // nil → clock.Real{}
	// PodFailureBackOff is the delay before the pod that replaces the first
	// failure in a row; it doubles with every further failure. 0 means
	// DefaultPodFailureBackOff (10 s); tests shorten it.
	PodFailureBackOff time.Duration
	// MaxPodFailureBackOff caps that delay; 0 means MaxPodFailureBackOff
	// (10 min).
	MaxPodFailureBackOff time.Duration
	// TTLClient reads and deletes the Jobs whose ttlSecondsAfterFinished
	// has passed: the work of upstream's ttl-after-finished controller,
	// which kplane folds into this one (ttl.go), done under that
	// controller's identity (ServiceAccount ttl-after-finished-controller,
	// whose system:controller: role may delete Jobs; the job-controller's
	// may not). nil → the controller's own client.
	TTLClient *client.Client
}

// Controller is the Job controller.
type Controller struct {
	// client reads Jobs past the cache (before adopting pods) and writes
	// their status.
	client *client.Client
	// ttlClient re-reads and deletes Jobs whose TTL expired
	// (Options.TTLClient).
	ttlClient *client.Client
	jobs      *informer.Lister[*api.Job]
	pods      *informer.Lister[*api.Pod]
	// podControl creates, deletes and patches the Jobs' pods and records
	// the SuccessfulCreate / SuccessfulDelete events.
	podControl   controllerutil.PodControl
	recorder     events.EventRecorder
	expectations *controllerutil.Expectations
	// removals are the tracking-finalizer removals sent but not yet seen.
	removals *finalizerRemovals
	queue    *workqueue.Queue[string]
	// orphans holds the keys of pods with the tracking finalizer and no
	// Job to remove it (orphans.go).
	orphans *workqueue.Queue[string]
	clock   clock.Clock
	log     *slog.Logger
	// decisions records the decisions of each sync (decision.go); nil
	// records nothing.
	decisions *controllerutil.DecisionLog

	backOff, maxBackOff time.Duration
	// cachesSynced are the handler registrations' HasSynced.
	cachesSynced []func() bool
}

// New builds the Job controller on the shared informers (it registers the
// Job and Pod informers); Jobs and pods are read and written through
// kubeClient, and events recorded with recorder (whose source is
// "job-controller").
func New(kubeClient *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.PodFailureBackOff <= 0 {
		opts.PodFailureBackOff = DefaultPodFailureBackOff
	}
	if opts.MaxPodFailureBackOff <= 0 {
		opts.MaxPodFailureBackOff = MaxPodFailureBackOff
	}
	if opts.TTLClient == nil {
		opts.TTLClient = kubeClient
	}
	jobs, pods := informers.Jobs(), informers.Pods()
	c := &Controller{
		client:       kubeClient,
		ttlClient:    opts.TTLClient,
		jobs:         jobs.Lister(),
		pods:         pods.Lister(),
		podControl:   controllerutil.PodControl{Client: kubeClient, Recorder: recorder},
		recorder:     recorder,
		expectations: controllerutil.NewExpectations(opts.Clock),
		removals:     newFinalizerRemovals(),
		clock:        opts.Clock,
		log:          opts.Logger.With("controller", Name),
		decisions:    controllerutil.NewDecisionLog(informers.Journal(), Name, "jobs.batch"),
		backOff:      opts.PodFailureBackOff,
		maxBackOff:   opts.MaxPodFailureBackOff,
		queue:        controllerutil.NewQueue(Name, opts.Clock, informers),
		orphans:      controllerutil.NewQueue(OrphanQueueName, opts.Clock, informers),
	}
	synced, err := controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: jobs.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    c.addJob,
			UpdateFunc: c.updateJob,
			DeleteFunc: c.deleteJob,
		}},
		controllerutil.Handlers{Informer: pods.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    c.addPod,
			UpdateFunc: c.updatePod,
			DeleteFunc: c.deletePod,
		}},
	)
	if err != nil {
		return nil, err
	}
	c.cachesSynced = synced
	return c, nil
}

// Run waits for the caches to sync, then runs workers Job workers and one
// orphan-pod worker (as upstream) until ctx ends. It does not start the
// informers.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("starting controller", "workers", workers)
	defer c.log.Info("stopped controller")
	if !informer.WaitForCacheSync(ctx, c.cachesSynced...) {
		c.queue.ShutDown()
		c.orphans.ShutDown()
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log) })
	wg.Go(func() { controllerutil.RunWorkers(ctx, c.orphans, 1, c.syncOrphanPod, c.log) })
	wg.Wait()
}

// Queue returns the controller's workqueue (for tests and views).
func (c *Controller) Queue() *workqueue.Queue[string] { return c.queue }
