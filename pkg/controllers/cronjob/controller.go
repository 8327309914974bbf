// Package cronjob is the CronJob controller: at each time a CronJob's cron
// schedule names it creates a Job from the CronJob's jobTemplate, named
// "<cronjob>-<minutes since the epoch>", honouring concurrencyPolicy
// (Allow, Forbid, Replace), suspend and startingDeadlineSeconds; it keeps
// status.active, lastScheduleTime and lastSuccessfulTime, and deletes
// finished Jobs beyond the history limits.
//
// The flow: a CronJob added or changed, or one of its Jobs changed,
// enqueues the CronJob's key — handlers.go; sync(key) — sync.go — reads the
// CronJob and its Jobs from the listers, creates the Job that is due, and
// requeues the key with AddAfter for the next start time, on the injectable
// clock, so tests fast-forward time. Upstream's cronjob_controllerv2.go.
// See docs/controllers/cronjob.md.
package cronjob

import (
	"context"
	"log/slog"

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
const Name = "cronjob"

// Options configure the controller.
type Options struct {
	Logger *slog.Logger // nil → slog.Default()
	Clock  clock.Clock  // nil → clock.Real{}; the schedule is read on it
}

// Controller is the CronJob controller.
type Controller struct {
	// client creates and deletes Jobs, writes the CronJobs' status, and
	// reads both past the cache when the cache may be behind.
	client   *client.Client
	cronJobs *informer.Lister[*api.CronJob]
	jobs     *informer.Lister[*api.Job]
	recorder events.EventRecorder
	queue    *workqueue.Queue[string]
	clock    clock.Clock
	log      *slog.Logger
	// decisions records each scheduling decision (decision.go); nil records
	// nothing.
	decisions *controllerutil.DecisionLog

	// cachesSynced are the handler registrations' HasSynced.
	cachesSynced []func() bool
}

// New builds the CronJob controller on the shared informers (it registers
// the CronJob and Job informers); Jobs are created and deleted through
// kubeClient and events recorded with recorder ("cronjob-controller").
func New(kubeClient *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	cronJobs, jobs := informers.CronJobs(), informers.Jobs()
	c := &Controller{
		client:    kubeClient,
		cronJobs:  cronJobs.Lister(),
		jobs:      jobs.Lister(),
		recorder:  recorder,
		clock:     opts.Clock,
		log:       opts.Logger.With("controller", Name),
		decisions: controllerutil.NewDecisionLog(informers.Journal(), Name, "cronjobs.batch"),
		queue:     controllerutil.NewQueue(Name, opts.Clock, informers),
	}
	synced, err := controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: cronJobs.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    c.addCronJob,
			UpdateFunc: c.updateCronJob,
			DeleteFunc: c.deleteCronJob,
		}},
		controllerutil.Handlers{Informer: jobs.Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    c.addJob,
			UpdateFunc: c.updateJob,
			DeleteFunc: c.deleteJob,
		}},
	)
	if err != nil {
		return nil, err
	}
	c.cachesSynced = synced
	return c, nil
}

// Run waits for the caches to sync, then runs workers workers until ctx
// ends. It does not start the informers.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.log.Info("starting controller", "workers", workers)
	defer c.log.Info("stopped controller")
	if !informer.WaitForCacheSync(ctx, c.cachesSynced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// Queue returns the controller's workqueue (for tests and views).
func (c *Controller) Queue() *workqueue.Queue[string] { return c.queue }
