// Package serviceaccounttoken is the token controller of
// kube-controller-manager ("serviceaccount-token"): it fills every Secret
// of type kubernetes.io/service-account-token with a legacy token for the
// ServiceAccount its kubernetes.io/service-account.name annotation names,
// plus the cluster CA (ca.crt) and the namespace, and deletes such Secrets
// when their ServiceAccount is gone. Upstream:
// pkg/controller/serviceaccount/tokens_controller.go.
//
// Since Kubernetes 1.24 nothing creates these Secrets automatically (pods
// get short-lived bound tokens from the TokenRequest API instead), but a
// user may still create one by hand, for a long-lived credential:
//
//	apiVersion: v1
//	kind: Secret
//	metadata:
//	  name: build-robot-token
//	  annotations:
//	    kubernetes.io/service-account.name: build-robot
//	type: kubernetes.io/service-account-token
//
// and this controller completes it. The token is a JWT signed with the
// ServiceAccount signing key (--service-account-private-key-file), which
// the apiserver accepts for as long as the Secret holds it (see
// pkg/serviceaccount/legacy.go).
//
// Upstream runs this controller with the controller-manager's own
// credentials, never a ServiceAccount's: the ServiceAccount credentials of
// the other controllers may depend on it.
package serviceaccounttoken

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
	"kplane/pkg/serviceaccount"
)

// Name is the controller's --controllers name, upstream's.
const Name = "serviceaccount-token"

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock drives the workqueues' back-off; nil is the wall clock.
	Clock clock.Clock
	// Issuer signs the tokens. Required.
	Issuer *serviceaccount.Issuer
	// RootCA is the PEM written as ca.crt (upstream: --root-ca-file, or
	// the CA of the controller-manager's kubeconfig).
	RootCA []byte
}

// Controller completes token Secrets and removes those of deleted
// ServiceAccounts. Build it with New, run it with Run.
type Controller struct {
	client *client.Client
	log    *slog.Logger
	issuer *serviceaccount.Issuer
	rootCA []byte

	serviceAccounts *informer.Lister[*api.ServiceAccount]
	secrets         *informer.Lister[*api.Secret]
	synced          []func() bool

	// secretQueue holds "namespace/name" of token Secrets to complete or
	// delete; deletedAccountQueue holds "namespace/name/uid" of deleted
	// ServiceAccounts whose token Secrets must go. Two queues, as
	// upstream, so that a burst of Secrets never delays a clean-up.
	secretQueue         *workqueue.Queue[string]
	deletedAccountQueue *workqueue.Queue[string]
}

// New builds the controller and registers its handlers on the secret and
// serviceaccount informers; the caller starts the factory.
func New(c *client.Client, informers *informer.SharedInformerFactory, opts Options) (*Controller, error) {
	if opts.Issuer == nil {
		return nil, errors.New("serviceaccount-token: no signing key (--service-account-private-key-file)")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	ctrl := &Controller{
		client:              c,
		log:                 logger.With("controller", Name),
		issuer:              opts.Issuer,
		rootCA:              opts.RootCA,
		serviceAccounts:     informers.ServiceAccounts().Lister(),
		secrets:             informers.Secrets().Lister(),
		secretQueue:         controllerutil.NewQueue(Name+"-secrets", opts.Clock, informers),
		deletedAccountQueue: controllerutil.NewQueue(Name+"-serviceaccounts", opts.Clock, informers),
	}
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.Secrets().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.secretChanged,
			UpdateFunc: func(_, newObj api.Object) { ctrl.secretChanged(newObj) },
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

// secretChanged enqueues a token Secret that was added or changed.
func (c *Controller) secretChanged(obj api.Object) {
	if secret, ok := obj.(*api.Secret); ok && secret.Type == serviceaccount.SecretTypeServiceAccountToken {
		c.secretQueue.Add(secret.Namespace + "/" + secret.Name)
	}
}

// serviceAccountDeleted enqueues a deleted ServiceAccount, with its uid: a
// new account of the same name must not keep the old one's Secrets.
func (c *Controller) serviceAccountDeleted(obj any) {
	sa, ok := informer.DeletedObject[*api.ServiceAccount](obj)
	if !ok {
		c.log.Warn("serviceaccount delete event without a ServiceAccount", "object", fmt.Sprintf("%T", obj))
		return
	}
	c.deletedAccountQueue.Add(sa.Namespace + "/" + sa.Name + "/" + sa.UID)
}

// Run waits for the caches, then works both queues until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.secretQueue.ShutDown()
		c.deletedAccountQueue.ShutDown()
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		controllerutil.RunWorkers(ctx, c.secretQueue, workers, c.syncSecret, c.log)
	}()
	go func() {
		defer wg.Done()
		controllerutil.RunWorkers(ctx, c.deletedAccountQueue, workers, c.syncDeletedServiceAccount, c.log)
	}()
	wg.Wait()
}

// syncSecret completes the token Secret namespace/name, or deletes it when
// its ServiceAccount does not exist (or is another account of that name).
// A complete Secret is left alone, so running it twice changes nothing.
func (c *Controller) syncSecret(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not a key this controller made
	}
	secret, err := c.secrets.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return fmt.Errorf("get secret %s from cache: %w", key, err)
	}
	if secret.Type != serviceaccount.SecretTypeServiceAccountToken || secret.DeletionTimestamp != nil {
		return nil
	}
	sa, err := c.serviceAccountFor(ctx, secret)
	if err != nil {
		return err
	}
	if sa == nil {
		c.log.Info("deleting token secret of a missing service account", "secret", key,
			"serviceaccount", secret.Annotations[serviceaccount.ServiceAccountNameAnnotation])
		return c.deleteSecret(ctx, secret)
	}
	completed, changed, err := c.complete(secret, sa)
	if err != nil || !changed {
		return err
	}
	// The update carries the cached resourceVersion: on a Conflict the key
	// is retried and the next sync sees the newer Secret.
	if _, err := c.client.Secrets(namespace).Update(ctx, completed, client.UpdateOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("update token secret %s: %w", key, err)
	}
	c.log.Info("filled token secret", "secret", key, "serviceaccount", sa.Name)
	return nil
}

// serviceAccountFor returns the ServiceAccount a token Secret is for, or
// nil when there is none with the name (and uid, once annotated). On a
// cache miss it asks the apiserver, as upstream: the account may have been
// created a moment before the Secret.
func (c *Controller) serviceAccountFor(ctx context.Context, secret *api.Secret) (*api.ServiceAccount, error) {
	name := secret.Annotations[serviceaccount.ServiceAccountNameAnnotation]
	if name == "" {
		return nil, nil
	}
	sa, err := c.serviceAccounts.Namespace(secret.Namespace).Get(name)
	if apierrors.IsNotFound(err) {
		sa, err = c.client.ServiceAccounts(secret.Namespace).Get(ctx, name, client.GetOptions{})
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("get service account %s/%s: %w", secret.Namespace, name, err)
	}
	if uid := secret.Annotations[serviceaccount.ServiceAccountUIDAnnotation]; uid != "" && uid != sa.UID {
		return nil, nil
	}
	return sa, nil
}

// complete returns a copy of secret with what is missing filled in: a
// token (only when it has none: a token once handed out stays valid), the
// CA, the namespace and the account's uid annotation.
func (c *Controller) complete(secret *api.Secret, sa *api.ServiceAccount) (*api.Secret, bool, error) {
	out := *secret
	out.Data = make(map[string][]byte, len(secret.Data)+3)
	for k, v := range secret.Data {
		out.Data[k] = v
	}
	out.Annotations = make(map[string]string, len(secret.Annotations)+1)
	for k, v := range secret.Annotations {
		out.Annotations[k] = v
	}
	changed := false
	if len(out.Data[serviceaccount.SecretTokenKey]) == 0 {
		token, err := c.issuer.IssueLegacy(sa.Namespace, sa.Name, sa.UID, secret.Name)
		if err != nil {
			return nil, false, fmt.Errorf("generate token for secret %s/%s: %w", secret.Namespace, secret.Name, err)
		}
		out.Data[serviceaccount.SecretTokenKey] = []byte(token)
		changed = true
	}
	if len(c.rootCA) > 0 && string(out.Data[serviceaccount.SecretCACertKey]) != string(c.rootCA) {
		out.Data[serviceaccount.SecretCACertKey] = c.rootCA
		changed = true
	}
	if string(out.Data[serviceaccount.SecretNamespaceKey]) != secret.Namespace {
		out.Data[serviceaccount.SecretNamespaceKey] = []byte(secret.Namespace)
		changed = true
	}
	if out.Annotations[serviceaccount.ServiceAccountUIDAnnotation] != sa.UID {
		out.Annotations[serviceaccount.ServiceAccountUIDAnnotation] = sa.UID
		changed = true
	}
	return &out, changed, nil
}

// syncDeletedServiceAccount deletes the token Secrets of the deleted
// account namespace/name/uid, unless an account of that name and uid is
// back (a relist may report a delete the cache already undid).
func (c *Controller) syncDeletedServiceAccount(ctx context.Context, key string) error {
	parts := strings.SplitN(key, "/", 3)
	if len(parts) != 3 {
		return nil
	}
	namespace, name, uid := parts[0], parts[1], parts[2]
	if sa, err := c.serviceAccounts.Namespace(namespace).Get(name); err == nil && sa.UID == uid {
		return nil
	}
	secrets, err := c.secrets.Namespace(namespace).List(labels.Everything())
	if err != nil {
		return fmt.Errorf("list secrets of %s from cache: %w", namespace, err)
	}
	var errs []error
	for _, secret := range secrets {
		if !tokenSecretOf(secret, name, uid) {
			continue
		}
		c.log.Info("deleting token secret of a deleted service account", "secret", namespace+"/"+secret.Name, "serviceaccount", name)
		if err := c.deleteSecret(ctx, secret); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// tokenSecretOf reports whether secret is a token Secret of the account
// name with uid (or not yet annotated with any uid).
func tokenSecretOf(secret *api.Secret, name, uid string) bool {
	if secret.Type != serviceaccount.SecretTypeServiceAccountToken ||
		secret.Annotations[serviceaccount.ServiceAccountNameAnnotation] != name {
		return false
	}
	annotated := secret.Annotations[serviceaccount.ServiceAccountUIDAnnotation]
	return annotated == "" || annotated == uid
}

// deleteSecret deletes secret if it is still the object seen (a uid
// precondition), NotFound being success.
func (c *Controller) deleteSecret(ctx context.Context, secret *api.Secret) error {
	uid := secret.UID
	err := c.client.Secrets(secret.Namespace).Delete(ctx, secret.Name, client.DeleteOptions{Preconditions: &api.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete token secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	return nil
}
