// Package csrapproving approves kubelets' client certificate requests
// automatically, as upstream's csrapproving controller
// (pkg/controller/certificates/approver/sarapprove.go) does: a pending
// CertificateSigningRequest that is a node client certificate
// (IsNodeClientCert) is approved when its requester may create
// certificatesigningrequests/nodeclient — a new node, asking with a
// bootstrap token — or, when a node renews its own,
// certificatesigningrequests/selfnodeclient. The apiserver answers that
// question with a SubjectAccessReview on the requester the server
// recorded in the spec, so RBAC (kubeadm's bindings) decides. Anything
// else is left pending for a person (`kubectl certificate approve`).
// See docs/join-nodes.md.
package csrapproving

import (
	"context"
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

// Name is the controller's --controllers name (upstream's), its
// workqueue's name and its "controller" log attribute.
const Name = "csrapproving"

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock stamps the Approved condition; nil is the wall clock.
	Clock clock.Clock
}

// Controller approves node client CSRs. Build it with New, run it with Run.
type Controller struct {
	client *client.Client
	log    *slog.Logger
	clock  clock.Clock
	csrs   *informer.Lister[*api.CertificateSigningRequest]
	synced []func() bool
	// queue holds CSR names (they are cluster-scoped).
	queue *workqueue.Queue[string]
}

// New builds the controller and registers its handler on the CSR
// informer; the caller starts the factory.
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
		client: c,
		log:    logger.With("controller", Name),
		clock:  clk,
		csrs:   informers.CertificateSigningRequests().Lister(),
		queue:  controllerutil.NewQueue(Name, clk, informers),
	}
	enqueue := func(obj api.Object) { ctrl.queue.Add(obj.GetObjectMeta().Name) }
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.CertificateSigningRequests().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    enqueue,
			UpdateFunc: func(_, obj api.Object) { enqueue(obj) },
		}})
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// Run waits for the CSR cache, then syncs with workers goroutines until
// ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, c.queue, workers, c.sync, c.log)
}

// sync approves the CSR named key if it is a pending node client request
// whose requester is allowed; anything decided already is left alone, so
// a second run changes nothing.
func (c *Controller) sync(ctx context.Context, key string) error {
	csr, err := c.csrs.Get(key)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get csr %s from cache: %w", key, err)
	}
	if decided(csr) {
		return nil
	}
	req, err := api.ParseCSR(csr.Spec.Request)
	if err != nil {
		c.log.Debug("not a parseable request; leaving it", "csr", key, "err", err)
		return nil
	}
	if ok, reason := IsNodeClientCert(csr, req); !ok {
		c.log.Debug("not a node client certificate; leaving it pending", "csr", key, "reason", reason)
		return nil
	}
	subresource := subresourceFor(csr, req)
	review, err := c.client.ReviewAccess(ctx, &api.SubjectAccessReview{Spec: api.SubjectAccessReviewSpec{
		User: csr.Spec.Username, UID: csr.Spec.UID, Groups: csr.Spec.Groups, Extra: csr.Spec.Extra,
		ResourceAttributes: &api.ResourceAttributes{Group: "certificates.k8s.io", Resource: "certificatesigningrequests",
			Subresource: subresource, Verb: "create"},
	}})
	if err != nil {
		return fmt.Errorf("review whether %s may have csr %s approved: %w", csr.Spec.Username, key, err)
	}
	if !review.Status.Allowed {
		c.log.Info("requester may not have this node certificate approved automatically; leaving it pending",
			"csr", key, "user", csr.Spec.Username, "subresource", subresource)
		return nil
	}
	approved := api.DeepCopy(csr)
	now := api.NewTime(c.clock.Now())
	approved.Status.Conditions = append(approved.Status.Conditions, api.CertificateSigningRequestCondition{
		Type: api.CertificateApproved, Status: api.ConditionTrue, Reason: "AutoApproved",
		Message:        "Auto approving kubelet client certificate after SubjectAccessReview.",
		LastUpdateTime: now, LastTransitionTime: now,
	})
	if _, err := c.client.UpdateApproval(ctx, approved); err != nil {
		return fmt.Errorf("approve csr %s: %w", key, err)
	}
	c.log.Info("approved kubelet client certificate", "csr", key, "user", csr.Spec.Username, "subresource", subresource)
	return nil
}

// decided says whether the CSR was approved or denied already, or signed.
func decided(csr *api.CertificateSigningRequest) bool {
	_, approved := api.CSRCondition(csr, api.CertificateApproved)
	_, denied := api.CSRCondition(csr, api.CertificateDenied)
	return approved || denied || len(csr.Status.Certificate) > 0
}
