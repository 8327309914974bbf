// Package rootcacertpublisher is the root-CA publisher: it keeps a
// ConfigMap kube-root-ca.crt in every namespace whose ca.crt is the
// cluster's CA certificate, recreating it when someone deletes it and
// putting the certificate back when someone changes it, as upstream's
// root-ca-cert-publisher in kube-controller-manager does.
//
// Every pod's token volume (the kube-api-access-<5> volume ServiceAccount
// admission adds) projects that key as the file ca.crt, which is how a
// client in a pod knows the apiserver it talks to is the real one. See
// docs/controllers/rootcacertpublisher.md.
package rootcacertpublisher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

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
const Name = "root-ca-cert-publisher"

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock drives the workqueue's back-off; nil is the wall clock.
	Clock clock.Clock
	// RootCA is the PEM of the cluster's CA certificate, the content every
	// namespace's ConfigMap must hold. Upstream takes it from
	// --root-ca-file or, without that flag, from the CA of the
	// controller-manager's own kubeconfig; kplane does the latter.
	RootCA []byte
}

// Controller keeps kube-root-ca.crt right in every namespace. Build it with
// New, run it with Run.
type Controller struct {
	client *client.Client
	log    *slog.Logger
	// decisions records each create and repair (decision.go).
	decisions *controllerutil.DecisionLog
	// rootCA is the PEM the ConfigMaps must hold.
	rootCA string

	namespaces *informer.Lister[*api.Namespace]
	configMaps *informer.Lister[*api.ConfigMap]
	// synced are the handler registrations' HasSynced: no worker starts
	// before both caches are full, or a sync would create ConfigMaps that
	// exist.
	synced []func() bool

	// queue holds namespace names: one key covers a namespace's ConfigMap.
	queue *workqueue.Queue[string]
}

// New builds the controller and registers its handlers on the namespace and
// configmap informers of informers; the caller starts the factory. An empty
// RootCA is an error: the controller would publish nothing a pod could use.
//
// Upstream's publisher records no Events, and neither does this one:
// recorder is accepted so that every controller has the same constructor.
func New(c *client.Client, informers *informer.SharedInformerFactory, _ events.EventRecorder, opts Options) (*Controller, error) {
	if len(opts.RootCA) == 0 {
		return nil, errors.New("root-ca-cert-publisher: no root CA: the controller-manager's kubeconfig names no certificate-authority")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	ctrl := &Controller{
		client:     c,
		log:        logger.With("controller", Name),
		decisions:  controllerutil.NewDecisionLog(informers.Journal(), Name, "configmaps"),
		rootCA:     string(opts.RootCA),
		namespaces: informers.Namespaces().Lister(),
		configMaps: informers.ConfigMaps().Lister(),
		queue:      controllerutil.NewQueue(Name, opts.Clock, informers),
	}
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Namespaces().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.namespaceAdded,
			UpdateFunc: ctrl.namespaceUpdated,
		}},
		controllerutil.Handlers{Informer: informers.ConfigMaps().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			UpdateFunc: func(_, newObj api.Object) { ctrl.configMapChanged(newObj) },
			DeleteFunc: ctrl.configMapDeleted,
		}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// namespaceAdded enqueues a namespace that appeared.
func (c *Controller) namespaceAdded(obj api.Object) {
	c.queue.Add(obj.GetObjectMeta().Name)
}

// namespaceUpdated enqueues a namespace that changed while it is Active,
// a chance to repair; a Terminating namespace is being emptied, and
// recreating its ConfigMap would only make the two controllers loop.
func (c *Controller) namespaceUpdated(_, newObj api.Object) {
	if ns, ok := newObj.(*api.Namespace); ok && ns.Status.Phase == api.NamespaceActive {
		c.queue.Add(ns.Name)
	}
}

// configMapChanged enqueues the namespace of an updated kube-root-ca.crt,
// so that a changed certificate is put back.
func (c *Controller) configMapChanged(obj api.Object) {
	if cm, ok := obj.(*api.ConfigMap); ok && cm.Name == api.RootCAConfigMapName {
		c.queue.Add(cm.Namespace)
	}
}

// configMapDeleted enqueues the namespace of a deleted kube-root-ca.crt, so
// that it is recreated. The object may be a tombstone when the informer
// learned of the delete from a relist.
func (c *Controller) configMapDeleted(obj any) {
	cm, ok := informer.DeletedObject[*api.ConfigMap](obj)
	if !ok {
		c.log.Warn("configmap delete event without a ConfigMap", "object", fmt.Sprintf("%T", obj))
		return
	}
	if cm.Name == api.RootCAConfigMapName {
		c.queue.Add(cm.Namespace)
	}
}

// Run waits for the namespace and configmap caches, then syncs namespaces
// with workers goroutines until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// sync makes the namespace named key hold the right kube-root-ca.crt: it
// creates a missing one, repairs a changed one, and leaves a correct one
// alone, so running it again changes nothing.
func (c *Controller) sync(ctx context.Context, key string) error {
	if _, err := c.namespaces.Get(key); apierrors.IsNotFound(err) {
		c.decisions.Forget(key + "/" + api.RootCAConfigMapName)
		return nil // deleted meanwhile
	} else if err != nil {
		return fmt.Errorf("get namespace %s from cache: %w", key, err)
	}
	current, err := c.configMaps.Namespace(key).Get(api.RootCAConfigMapName)
	if apierrors.IsNotFound(err) {
		c.recordCreate(key)
		return c.create(ctx, key)
	}
	if err != nil {
		return fmt.Errorf("get configmap %s/%s from cache: %w", key, api.RootCAConfigMapName, err)
	}
	repaired, changed := repair(current, c.rootCA)
	if !changed {
		return nil
	}
	c.recordRepair(current)
	// The update carries the cached resourceVersion: if someone changed the
	// ConfigMap again meanwhile, the Conflict requeues and the next sync
	// sees their change.
	if _, err := c.client.ConfigMaps(key).Update(ctx, repaired, client.UpdateOptions{}); err != nil {
		return fmt.Errorf("update configmap %s/%s: %w", key, api.RootCAConfigMapName, err)
	}
	c.log.Info("repaired root CA configmap", "namespace", key)
	return nil
}

// create creates the ConfigMap. AlreadyExists is success (the cache lagged,
// or a second controller-manager that briefly also leads created it: the
// next event brings it here for a check). A namespace that is gone or
// terminating is not retried, as upstream.
func (c *Controller) create(ctx context.Context, namespace string) error {
	_, err := c.client.ConfigMaps(namespace).Create(ctx, desired(namespace, c.rootCA), client.CreateOptions{})
	switch {
	case err == nil:
		c.log.Info("published root CA configmap", "namespace", namespace)
		return nil
	case apierrors.IsAlreadyExists(err):
		return nil
	case apierrors.HasStatusCause(err, apierrors.NamespaceTerminatingCause) || apierrors.IsNotFound(err):
		c.log.Debug("namespace no longer accepts configmaps", "namespace", namespace, "err", err)
		return nil
	}
	return fmt.Errorf("create configmap %s/%s: %w", namespace, api.RootCAConfigMapName, err)
}
