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
	"fmt"
	"log/slog"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's name: its workqueue's and its logs'.
const Name = "cronjob"

// Options configure the controller.
type Options struct {
	Logger *slog.Logger // nil → slog.Default()
	Clock  clock.Clock  // nil → clock.Real{}; the schedule is read on it
}

// Controller is the CronJob controller.
type Controller struct {
	cronJobs   *informer.Lister[*api.CronJob]
	jobs       *informer.Lister[*api.Job]
	jobControl jobControl
	recorder   events.EventRecorder
	queue      *workqueue.Queue[string]
	clock      clock.Clock
	log        *slog.Logger

	cachesSynced []func() bool
}

// jobControl is the controller's access to the apiserver, an interface so
// fixture tests can record the calls.
type jobControl interface {
	GetJob(ctx context.Context, namespace, name string) (*api.Job, error)
	CreateJob(ctx context.Context, job *api.Job) (*api.Job, error)
	// DeleteJob deletes a Job with Background propagation: the Job goes
	// now, its pods after it through the garbage collector.
	DeleteJob(ctx context.Context, namespace, name string) error
	UpdateStatus(ctx context.Context, cj *api.CronJob) (*api.CronJob, error)
	// GetCronJob reads a CronJob from the apiserver, past the cache.
	GetCronJob(ctx context.Context, namespace, name string) (*api.CronJob, error)
}

type realJobControl struct{ c *client.Client }

func (r realJobControl) GetJob(ctx context.Context, namespace, name string) (*api.Job, error) {
	return r.c.Jobs(namespace).Get(ctx, name, client.GetOptions{})
}

func (r realJobControl) CreateJob(ctx context.Context, job *api.Job) (*api.Job, error) {
	return r.c.Jobs(job.Namespace).Create(ctx, job, client.CreateOptions{})
}

func (r realJobControl) DeleteJob(ctx context.Context, namespace, name string) error {
	background := api.DeletePropagationBackground
	return r.c.Jobs(namespace).Delete(ctx, name, client.DeleteOptions{PropagationPolicy: &background})
}

func (r realJobControl) GetCronJob(ctx context.Context, namespace, name string) (*api.CronJob, error) {
	return r.c.CronJobs(namespace).Get(ctx, name, client.GetOptions{})
}

func (r realJobControl) UpdateStatus(ctx context.Context, cj *api.CronJob) (*api.CronJob, error) {
	return r.c.CronJobs(cj.Namespace).UpdateStatus(ctx, cj, client.UpdateOptions{})
}

// New builds the CronJob controller on the shared informers (it registers
// the CronJob and Job informers); Jobs are created and deleted through c
// and events recorded with recorder ("cronjob-controller").
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	return newController(informers, realJobControl{c}, recorder, opts)
}

// newController is New with the API access injected, for tests.
func newController(informers *informer.SharedInformerFactory, jobControl jobControl, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	cronJobs, jobs := informers.CronJobs(), informers.Jobs()
	c := &Controller{
		cronJobs:   cronJobs.Lister(),
		jobs:       jobs.Lister(),
		jobControl: jobControl,
		recorder:   recorder,
		clock:      opts.Clock,
		log:        opts.Logger.With("controller", Name),
		queue:      controllerutil.NewQueue(Name, opts.Clock, informers),
	}
	cjReg, err := cronJobs.Informer().AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc:    func(obj api.Object) { c.queue.Add(keyOf(obj)) },
		UpdateFunc: func(_, obj api.Object) { c.queue.Add(keyOf(obj)) },
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(informer.DeletedFinalStateUnknown); ok {
				c.queue.Add(tombstone.Key)
				return
			}
			if o, ok := obj.(api.Object); ok {
				c.queue.Add(keyOf(o))
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%s: watch cronjobs: %w", Name, err)
	}
	jobReg, err := jobs.Informer().AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc:    c.jobChanged,
		UpdateFunc: func(_, obj api.Object) { c.jobChanged(obj) },
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(informer.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			if o, ok := obj.(api.Object); ok {
				c.jobChanged(o)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%s: watch jobs: %w", Name, err)
	}
	c.cachesSynced = []func() bool{cjReg.HasSynced, jobReg.HasSynced}
	return c, nil
}

// jobChanged enqueues the CronJob that controls a Job that was created,
// changed (it finished) or deleted.
func (c *Controller) jobChanged(obj api.Object) {
	job, ok := obj.(*api.Job)
	if !ok {
		return
	}
	ref := controllerutil.GetControllerOf(&job.ObjectMeta)
	if ref == nil || ref.Kind != "CronJob" {
		return
	}
	cj, err := c.cronJobs.Namespace(job.Namespace).Get(ref.Name)
	if err != nil || cj.UID != ref.UID {
		return
	}
	c.queue.Add(keyOf(cj))
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

// keyOf returns obj's "namespace/name" key.
func keyOf(obj api.Object) string {
	key, _ := informer.MetaNamespaceKeyFunc(obj)
	return key
}
