// Package csrsigning issues the certificates of approved
// CertificateSigningRequests with the cluster CA, as upstream's csrsigning
// controller (pkg/controller/certificates/signer) does with
// kube-controller-manager's --cluster-signing-cert-file and
// --cluster-signing-key-file. It signs for two signers:
// kubernetes.io/kube-apiserver-client-kubelet (only requests that are node
// client certificates; others are marked Failed) and
// kubernetes.io/kube-apiserver-client. Requests for other signers are not
// this controller's and are left alone, as upstream's signers each look
// only at their own name; kubernetes.io/kubelet-serving is not signed,
// since kplane's kubelets serve with certificates of their own. See
// docs/join-nodes.md.
package csrsigning

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/controllers/csrapproving"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
	"kplane/pkg/pki"
)

// Name is the controller's --controllers name (upstream's), its
// workqueue's name and its "controller" log attribute.
const Name = "csrsigning"

// DefaultDuration is the longest certificate the signer issues,
// upstream's --cluster-signing-duration default (one year).
const DefaultDuration = 365 * 24 * time.Hour

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock dates the certificates; nil is the wall clock.
	Clock clock.Clock
	// Signer holds the cluster CA. Required.
	Signer *pki.Signer
	// Duration caps the validity (0: DefaultDuration).
	Duration time.Duration
}

// Controller signs approved CSRs. Build it with New, run it with Run.
type Controller struct {
	client   *client.Client
	log      *slog.Logger
	clock    clock.Clock
	signer   *pki.Signer
	duration time.Duration
	csrs     *informer.Lister[*api.CertificateSigningRequest]
	synced   []func() bool
	queue    *workqueue.Queue[string]
}

// New builds the controller and registers its handler on the CSR
// informer; the caller starts the factory. Without a signer it is an
// error: the controller-manager then has no --cluster-signing-* files.
func New(c *client.Client, informers *informer.SharedInformerFactory, _ events.EventRecorder, opts Options) (*Controller, error) {
	if opts.Signer == nil {
		return nil, errors.New("csrsigning: no CA: --cluster-signing-cert-file and --cluster-signing-key-file are required")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	duration := opts.Duration
	if duration <= 0 {
		duration = DefaultDuration
	}
	ctrl := &Controller{
		client: c, log: logger.With("controller", Name), clock: clk, signer: opts.Signer, duration: duration,
		csrs:  informers.CertificateSigningRequests().Lister(),
		queue: controllerutil.NewQueue(Name, clk, informers),
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

// sync signs the CSR named key when it is approved, not failed, not yet
// issued, and addressed to one of this signer's names. An issued
// certificate is never replaced, so a second run changes nothing.
func (c *Controller) sync(ctx context.Context, key string) error {
	csr, err := c.csrs.Get(key)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get csr %s from cache: %w", key, err)
	}
	if !c.wants(csr) {
		return nil
	}
	certPEM, failure := c.issue(csr)
	updated := api.DeepCopy(csr)
	if failure != "" {
		now := api.NewTime(c.clock.Now())
		updated.Status.Conditions = append(updated.Status.Conditions, api.CertificateSigningRequestCondition{
			Type: api.CertificateFailed, Status: api.ConditionTrue, Reason: "SignerValidationFailure",
			Message: failure, LastUpdateTime: now, LastTransitionTime: now,
		})
		c.log.Info("refused to sign", "csr", key, "reason", failure)
	} else {
		updated.Status.Certificate = certPEM
	}
	if _, err := c.client.CertificateSigningRequests().UpdateStatus(ctx, updated, client.UpdateOptions{}); err != nil {
		return fmt.Errorf("write certificate of csr %s: %w", key, err)
	}
	if failure == "" {
		c.log.Info("signed certificate", "csr", key, "signer", csr.Spec.SignerName, "user", csr.Spec.Username)
	}
	return nil
}

// wants says whether the CSR is this signer's to sign now.
func (c *Controller) wants(csr *api.CertificateSigningRequest) bool {
	if csr.Spec.SignerName != api.KubeAPIServerClientKubeletSignerName && csr.Spec.SignerName != api.KubeAPIServerClientSignerName {
		return false
	}
	_, approved := api.CSRCondition(csr, api.CertificateApproved)
	_, failed := api.CSRCondition(csr, api.CertificateFailed)
	return approved && !failed && len(csr.Status.Certificate) == 0
}

// issue signs the request, or says why it will not (the Failed message).
func (c *Controller) issue(csr *api.CertificateSigningRequest) (certPEM []byte, failure string) {
	req, err := api.ParseCSR(csr.Spec.Request)
	if err != nil {
		return nil, err.Error()
	}
	if csr.Spec.SignerName == api.KubeAPIServerClientSignerName && slices.Contains(req.Subject.Organization, "system:masters") {
		// The apiserver refuses such a request on create (upstream's
		// subjectrestriction); one stored before that rule is not signed either.
		return nil, "use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed"
	}
	if csr.Spec.SignerName == api.KubeAPIServerClientKubeletSignerName {
		if ok, reason := csrapproving.IsNodeClientCert(csr, req); !ok {
			return nil, "invalid kubelet client certificate request: " + reason
		}
	}
	keyUsage, ext, err := keyUsages(csr.Spec.Usages)
	if err != nil {
		return nil, err.Error()
	}
	if len(ext) == 0 {
		return nil, "a client certificate must have usage \"client auth\""
	}
	certPEM, err = c.signer.SignRequest(req, ext, keyUsage, validity(csr, c.duration), c.clock.Now())
	if err != nil {
		return nil, err.Error()
	}
	return certPEM, ""
}
