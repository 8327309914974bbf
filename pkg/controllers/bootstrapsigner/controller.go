// Package bootstrapsigner keeps the ConfigMap kube-public/cluster-info
// signed, as upstream's pkg/controller/bootstrap bootstrapsigner.go does:
// for every bootstrap token Secret with usage-bootstrap-signing, the
// ConfigMap carries a key jws-kubeconfig-<token-id> holding a detached
// JWS of its kubeconfig, keyed by that token. A joining node that knows a
// token fetches cluster-info anonymously, over a connection it cannot yet
// trust, and checks the signature: only someone who knows the token could
// have written it, so the server and CA in that kubeconfig are the
// cluster's. Signatures of tokens that expired or were deleted are removed.
// See docs/join-nodes.md.
package bootstrapsigner

import (
	"context"
	"fmt"
	"log/slog"
	"maps"

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
const Name = "bootstrapsigner"

// queueKey is the only key: every change leads to re-signing the one
// ConfigMap.
const queueKey = bootstraptoken.ClusterInfoNamespace + "/" + bootstraptoken.ClusterInfoName

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock is what token expiry is judged by; nil is the wall clock.
	Clock clock.Clock
}

// Controller signs cluster-info. Build it with New, run it with Run.
type Controller struct {
	client     *client.Client
	log        *slog.Logger
	clock      clock.Clock
	configMaps *informer.Lister[*api.ConfigMap]
	secrets    *informer.Lister[*api.Secret]
	synced     []func() bool
	queue      *workqueue.Queue[string]
}

// New builds the controller and registers its handlers on the ConfigMap
// and Secret informers; the caller starts the factory.
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
		client:     c,
		log:        logger.With("controller", Name),
		clock:      clk,
		configMaps: informers.ConfigMaps().Lister(),
		secrets:    informers.Secrets().Lister(),
		queue:      controllerutil.NewQueue(Name, clk, informers),
	}
	configMapChanged := func(obj any) {
		if cm, ok := informer.DeletedObject[*api.ConfigMap](obj); ok &&
			cm.Namespace == bootstraptoken.ClusterInfoNamespace && cm.Name == bootstraptoken.ClusterInfoName {
			ctrl.queue.Add(queueKey)
		}
	}
	secretChanged := func(obj any) {
		if s, ok := informer.DeletedObject[*api.Secret](obj); ok &&
			s.Namespace == bootstraptoken.SecretNamespace && s.Type == bootstraptoken.SecretType {
			ctrl.queue.Add(queueKey)
		}
	}
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.ConfigMaps().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    func(obj api.Object) { configMapChanged(obj) },
			UpdateFunc: func(_, obj api.Object) { configMapChanged(obj) },
		}},
		controllerutil.Handlers{Informer: informers.Secrets().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    func(obj api.Object) { secretChanged(obj) },
			UpdateFunc: func(_, obj api.Object) { secretChanged(obj) },
			DeleteFunc: secretChanged,
		}})
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the caches, then signs with one worker (there is one key)
// until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// sync makes cluster-info's JWS keys exactly the signatures of the live
// signing tokens. Signatures are deterministic (HMAC), so a second run
// finds nothing to change. A token that will expire brings the key back
// then, to drop its signature.
func (c *Controller) sync(ctx context.Context, _ string) error {
	cm, err := c.configMaps.Namespace(bootstraptoken.ClusterInfoNamespace).Get(bootstraptoken.ClusterInfoName)
	if apierrors.IsNotFound(err) {
		return nil // nothing to sign until `ctl token create` or an admin publishes it
	}
	if err != nil {
		return fmt.Errorf("get configmap %s from cache: %w", queueKey, err)
	}
	secrets, err := c.secrets.Namespace(bootstraptoken.SecretNamespace).List(nil)
	if err != nil {
		return fmt.Errorf("list bootstrap token secrets from cache: %w", err)
	}
	now := c.clock.Now()
	c.requeueAtNextExpiry(secrets)
	want, err := desiredSignatures(cm.Data[bootstraptoken.KubeconfigKey], secrets, now)
	if err != nil {
		return fmt.Errorf("sign cluster-info: %w", err)
	}
	if maps.Equal(want, currentSignatures(cm.Data)) {
		return nil
	}
	updated := api.DeepCopy(cm)
	updated.Data = withSignatures(cm.Data, want)
	if _, err := c.client.ConfigMaps(cm.Namespace).Update(ctx, updated, client.UpdateOptions{}); err != nil {
		return fmt.Errorf("update configmap %s: %w", queueKey, err)
	}
	c.log.Info("signed cluster-info", "signatures", len(want))
	return nil
}

// requeueAtNextExpiry looks again when the next signing token expires.
func (c *Controller) requeueAtNextExpiry(secrets []*api.Secret) {
	now := c.clock.Now()
	for _, s := range secrets {
		if t, ok := bootstraptoken.Expiration(s); ok && t.After(now) && s.Type == bootstraptoken.SecretType {
			c.queue.AddAfter(queueKey, t.Sub(now))
		}
	}
}
