// Package tokencleaner deletes bootstrap token Secrets once their
// expiration has passed, as upstream's pkg/controller/bootstrap
// tokencleaner.go does: a token printed in a join command stops working
// (the authenticator refuses it the moment it expires) and then stops
// existing. A Secret that has not expired yet is looked at again when it
// does. See docs/join-nodes.md.
package tokencleaner

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/bootstraptoken"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's --controllers name (upstream's), its
// workqueue's name and its "controller" log attribute.
const Name = "tokencleaner"

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock is what expiry is judged by; nil is the wall clock.
	Clock clock.Clock
}

// Controller deletes expired bootstrap token Secrets. Build it with New,
// run it with Run.
type Controller struct {
	client  *client.Client
	log     *slog.Logger
	clock   clock.Clock
	secrets *informer.Lister[*api.Secret]
	synced  []func() bool
	// queue holds "kube-system/<name>" keys of bootstrap token Secrets.
	queue *workqueue.Queue[string]
}

// New builds the controller and registers its handler on the Secret
// informer; the caller starts the factory. Upstream's tokencleaner records
// no Events.
func New(c *client.Client, informers *informer.SharedInformerFactory, _ events.EventRecorder, opts Options) (*Controller, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	ctrl := &Controller{
		client:  c,
		log:     logger.With("controller", Name),
		clock:   clk,
		secrets: informers.Secrets().Lister(),
		queue:   controllerutil.NewQueue(Name, clk, informers),
	}
	enqueue := func(obj api.Object) {
		if s, ok := obj.(*api.Secret); ok && s.Namespace == bootstraptoken.SecretNamespace && s.Type == bootstraptoken.SecretType {
			ctrl.queue.Add(s.Namespace + "/" + s.Name)
		}
	}
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Secrets().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    enqueue,
			UpdateFunc: func(_, newObj api.Object) { enqueue(newObj) },
		}})
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the Secret cache, then syncs with workers goroutines until
// ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// sync deletes the Secret if its token has expired, or looks again when it
// will have. The delete is conditional on the uid it saw, so a Secret
// recreated under the same name meanwhile is left alone.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, _ := strings.Cut(key, "/")
	secret, err := c.secrets.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get secret %s from cache: %w", key, err)
	}
	expiry, ok := bootstraptoken.Expiration(secret)
	if !ok {
		return nil // a token without expiration lives until deleted
	}
	now := c.clock.Now()
	if !bootstraptoken.Expired(secret, now) {
		c.queue.AddAfter(key, expiry.Sub(now))
		return nil
	}
	uid := secret.UID
	err = c.client.Secrets(namespace).Delete(ctx, name, client.DeleteOptions{Preconditions: &api.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete expired bootstrap token secret %s: %w", key, err)
	}
	c.log.Info("deleted expired bootstrap token", "secret", key, "expiration", expiry.UTC().Format("2006-01-02T15:04:05Z"))
	return nil
}
