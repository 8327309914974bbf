// Package serviceaccount is the serviceaccounts controller: it makes sure
// every namespace that is not being deleted has a ServiceAccount named
// "default", recreating it when someone deletes it, as upstream's
// serviceaccounts-controller in kube-controller-manager does.
//
// It is the smallest controller in kplane and so the easiest to read first:
// two informers, handlers that only enqueue a namespace name, and a sync
// that compares the accounts a namespace should have with the ones the cache
// holds and creates the missing ones. See docs/controllers/serviceaccount.md.
package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's name: its --controllers name, its workqueue's
// name (which labels its metrics) and its "controller" log attribute.
const Name = "serviceaccount"

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock drives the workqueue's back-off; nil is the wall clock.
	Clock clock.Clock
	// ServiceAccounts are the account names ensured in every namespace;
	// nil means just "default", upstream's only default.
	ServiceAccounts []string
}

// Controller keeps the configured ServiceAccounts present in every live
// namespace. Build it with New, run it with Run.
type Controller struct {
	client *client.Client
	log    *slog.Logger
	// decisions records each account it decides to create (decision.go).
	decisions *controllerutil.DecisionLog
	// ensure are the account names every namespace must have.
	ensure []string

	namespaces      *informer.Lister[*api.Namespace]
	serviceAccounts *informer.Lister[*api.ServiceAccount]
	// synced are the handler registrations' HasSynced: Run starts no
	// worker before both caches hold the whole cluster, or a sync would
	// see an empty cache and create accounts that already exist.
	synced []func() bool

	// queue holds namespace names (a namespace is cluster-scoped, so its
	// key is just its name). One key covers every account of a namespace.
	queue *workqueue.Queue[string]
}

// New builds the controller and registers its handlers on the namespace and
// serviceaccount informers of informers; the caller starts the factory.
//
// Upstream's serviceaccounts controller records no Events, and neither does
// this one: recorder is accepted so that every controller has the same
// constructor, and ignored.
func New(c *client.Client, informers *informer.SharedInformerFactory, _ events.EventRecorder, opts Options) (*Controller, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	ensure := opts.ServiceAccounts
	if ensure == nil {
		ensure = []string{DefaultServiceAccountName}
	}
	ctrl := &Controller{
		client:          c,
		log:             logger.With("controller", Name),
		decisions:       controllerutil.NewDecisionLog(informers.Journal(), Name, "serviceaccounts"),
		ensure:          slices.Clone(ensure),
		namespaces:      informers.Namespaces().Lister(),
		serviceAccounts: informers.ServiceAccounts().Lister(),
		queue:           controllerutil.NewQueue(Name, opts.Clock, informers),
	}
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Namespaces().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc: ctrl.namespaceAdded,
			// Every update is a chance to repair: upstream also enqueues on
			// each namespace update (and on resyncs), not only on phase
			// changes.
			UpdateFunc: func(_, newObj api.Object) { ctrl.namespaceAdded(newObj) },
		}},
		controllerutil.Handlers{Informer: informers.ServiceAccounts().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			DeleteFunc: ctrl.serviceAccountDeleted,
		}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// namespaceAdded enqueues a namespace that appeared or changed.
func (c *Controller) namespaceAdded(obj api.Object) {
	c.queue.Add(obj.GetObjectMeta().Name)
}

// serviceAccountDeleted enqueues the namespace of a deleted account that
// the controller ensures, so that it is recreated. The object may be a
// tombstone when the informer missed the delete itself and learned of it
// from a relist.
func (c *Controller) serviceAccountDeleted(obj any) {
	sa, ok := informer.DeletedObject[*api.ServiceAccount](obj)
	if !ok {
		c.log.Warn("serviceaccount delete event without a ServiceAccount", "object", fmt.Sprintf("%T", obj))
		return
	}
	if slices.Contains(c.ensure, sa.Name) {
		c.queue.Add(sa.Namespace)
	}
}

// Run waits for the namespace and serviceaccount caches, then syncs
// namespaces with workers goroutines until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// sync makes sure the namespace named key has every ensured account. It
// reads the namespace and its accounts from the caches and creates only
// what is missing, so running it again changes nothing.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, err := c.namespaces.Get(key)
	if apierrors.IsNotFound(err) {
		for _, name := range c.ensure {
			c.decisions.Forget(key + "/" + name)
		}
		return nil // deleted meanwhile: nothing to ensure
	}
	if err != nil {
		return fmt.Errorf("get namespace %s from cache: %w", key, err)
	}
	exists := func(name string) bool {
		_, err := c.serviceAccounts.Namespace(ns.Name).Get(name)
		return err == nil
	}
	var errs []error
	for _, name := range serviceAccountsToCreate(ns, c.ensure, exists) {
		c.recordCreate(ns, name)
		if err := c.create(ctx, ns.Name, name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// create creates one ServiceAccount. AlreadyExists is success: the cache
// lagged behind the apiserver, or a second controller-manager that briefly
// also leads created it first. A Forbidden with the NamespaceTerminating
// cause (NamespaceLifecycle admission) or a NotFound means the namespace is
// being deleted or is gone, which the cache had not seen yet; upstream
// ignores those too rather than retrying.
func (c *Controller) create(ctx context.Context, namespace, name string) error {
	sa := &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace}}
	_, err := c.client.ServiceAccounts(namespace).Create(ctx, sa, client.CreateOptions{})
	switch {
	case err == nil:
		c.log.Info("created service account", "namespace", namespace, "name", name)
		return nil
	case apierrors.IsAlreadyExists(err):
		return nil
	case apierrors.HasStatusCause(err, apierrors.NamespaceTerminatingCause) || apierrors.IsNotFound(err):
		c.log.Debug("namespace no longer accepts service accounts", "namespace", namespace, "name", name, "err", err)
		return nil
	}
	return fmt.Errorf("create serviceaccount %s/%s: %w", namespace, name, err)
}
