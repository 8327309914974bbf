// Package hostpathprovisioner is kplane's dynamic volume provisioner: for
// every claim of a StorageClass whose provisioner is "kplane.io/hostpath"
// it makes a directory under the cluster's data directory and a
// PersistentVolume pointing at it, and it removes the directory again
// when the volume is deleted. It plays the part kind's local-path
// provisioner (rancher.io/local-path) plays on a kind cluster, and follows
// the protocol every external provisioner follows upstream:
//
//  1. The persistentvolume-binder finds no volume for a claim of a class
//     and marks the claim volume.kubernetes.io/storage-provisioner:
//     <the class's provisioner> (for a WaitForFirstConsumer class, only
//     once the scheduler has put volume.kubernetes.io/selected-node on it).
//  2. This controller sees a marked claim that names its provisioner and
//     creates the volume pvc-<claim uid>: a hostPath
//     <volumes dir>/pvc-<claim uid>, pre-bound to the claim (claimRef),
//     pinned to the selected node if there is one, with the class's
//     reclaim policy.
//  3. The binder binds the two, as it binds any pre-bound volume.
//  4. When the claim goes and the policy is Delete, the binder deletes the
//     volume; the finalizer this controller put on it keeps it until the
//     directory is removed.
//
// See docs/controllers/hostpath-provisioner.md.
package hostpathprovisioner

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// Name is the controller's --controllers name and its "controller" log
// attribute. Its queues are Name+"-claims" and Name+"-volumes".
const Name = "hostpath-provisioner"

// ProvisionerName is the provisioner a StorageClass names to have its
// volumes made by this controller. Upstream's convention for a
// provisioner outside Kubernetes itself is "<domain of its author>/<name>"
// (rancher.io/local-path, ebs.csi.aws.com); the in-tree
// kubernetes.io/host-path name belongs to upstream's own test provisioner.
const ProvisionerName = "kplane.io/hostpath"

// Annotations of the provisioning protocol, upstream's names.
const (
	// AnnProvisionedBy marks a volume with the provisioner that made it.
	AnnProvisionedBy = "pv.kubernetes.io/provisioned-by"
	// FinalizerVolume keeps a provisioned volume until its storage is
	// removed (upstream's external-provisioner uses the same name).
	FinalizerVolume = "external-provisioner.volume.kubernetes.io/finalizer"
)

// The reasons of the Events recorded on claims, upstream's.
const (
	ReasonProvisioning          = "Provisioning"
	ReasonProvisioningSucceeded = "ProvisioningSucceeded"
	ReasonProvisioningFailed    = "ProvisioningFailed"
)

// Options configure the controller.
type Options struct {
	// Logger receives the controller's logs; nil is slog.Default().
	Logger *slog.Logger
	// Clock drives the queues' back-off; nil is the wall clock.
	Clock clock.Clock
	// VolumesDir is the directory the volumes are made in, one
	// subdirectory each (`ctl up` passes <data-dir>/volumes). Required.
	VolumesDir string
}

// Controller provisions hostPath volumes for claims. Build it with New,
// run it with Run.
type Controller struct {
	client   *client.Client
	recorder events.EventRecorder
	log      *slog.Logger
	// claimDecisions and volumeDecisions record what the syncs decide
	// (decision.go).
	claimDecisions, volumeDecisions *controllerutil.DecisionLog
	volumesDir                      string

	claims  *informer.Lister[*api.PersistentVolumeClaim]
	volumes *informer.Lister[*api.PersistentVolume]
	classes *informer.Lister[*api.StorageClass]
	// synced are the handler registrations' HasSynced: no sync runs before
	// the caches are full, or a claim whose volume exists already would
	// look unprovisioned.
	synced []func() bool

	// claimQueue holds "namespace/name" keys of claims that may need a
	// volume; volumeQueue names of volumes that may need their directory
	// removed.
	claimQueue  *workqueue.Queue[string]
	volumeQueue *workqueue.Queue[string]
}

// New builds the controller and registers its handlers on the claim,
// volume and storage class informers of informers; the caller starts the
// factory.
func New(c *client.Client, informers *informer.SharedInformerFactory, recorder events.EventRecorder, opts Options) (*Controller, error) {
	if opts.VolumesDir == "" {
		return nil, errors.New("the hostpath provisioner needs a volumes directory")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	ctrl := &Controller{
		client:          c,
		recorder:        recorder,
		log:             opts.Logger.With("controller", Name),
		volumesDir:      opts.VolumesDir,
		claimDecisions:  controllerutil.NewDecisionLog(informers.Journal(), Name, "persistentvolumeclaims"),
		volumeDecisions: controllerutil.NewDecisionLog(informers.Journal(), Name, "persistentvolumes"),
		claims:          informers.PersistentVolumeClaims().Lister(),
		volumes:         informers.PersistentVolumes().Lister(),
		classes:         informers.StorageClasses().Lister(),
		claimQueue:      controllerutil.NewQueue(Name+"-claims", opts.Clock, informers),
		volumeQueue:     controllerutil.NewQueue(Name+"-volumes", opts.Clock, informers),
	}
	var err error
	ctrl.synced, err = controllerutil.AddEventHandlers(Name,
		controllerutil.Handlers{Informer: informers.PersistentVolumeClaims().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.claimChanged,
			UpdateFunc: func(_, newObj api.Object) { ctrl.claimChanged(newObj) },
		}},
		controllerutil.Handlers{Informer: informers.PersistentVolumes().Informer(), Handler: informer.ResourceEventHandlerFuncs{
			AddFunc:    ctrl.volumeChanged,
			UpdateFunc: func(_, newObj api.Object) { ctrl.volumeChanged(newObj) },
		}},
		// The class is read from its cache only; a claim that waited for
		// its class is retried with back-off, so no class handler is needed.
		controllerutil.Handlers{Informer: informers.StorageClasses().Informer(), Handler: informer.ResourceEventHandlerFuncs{}},
	)
	if err != nil {
		return nil, err
	}
	return ctrl, nil
}

// claimChanged enqueues a claim that has been handed to this provisioner.
// Claims for other provisioners, and claims without the binder's mark,
// are none of its business.
func (c *Controller) claimChanged(obj api.Object) {
	claim := obj.(*api.PersistentVolumeClaim)
	if provisionerOf(claim) == ProvisionerName {
		c.claimQueue.Add(claim.Namespace + "/" + claim.Name)
	}
}

// volumeChanged enqueues a volume this provisioner made once it is being
// deleted: its directory is to be removed.
func (c *Controller) volumeChanged(obj api.Object) {
	pv := obj.(*api.PersistentVolume)
	if pv.Annotations[AnnProvisionedBy] == ProvisionerName && pv.DeletionTimestamp != nil {
		c.volumeQueue.Add(pv.Name)
	}
}

// Run waits for the caches, then provisions and cleans up with workers
// goroutines per queue until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	if !informer.WaitForCacheSync(ctx, c.synced...) {
		c.claimQueue.ShutDown()
		c.volumeQueue.ShutDown()
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { controllerutil.RunWorkers(ctx, c.volumeQueue, workers, c.syncVolume, c.log) })
	controllerutil.RunWorkers(ctx, c.claimQueue, workers, c.syncClaim, c.log)
	wg.Wait()
}

// provisionerOf returns the provisioner the binder handed claim to, under
// either annotation name.
func provisionerOf(claim *api.PersistentVolumeClaim) string {
	if p, ok := claim.Annotations[api.AnnStorageProvisioner]; ok {
		return p
	}
	return claim.Annotations[api.AnnBetaStorageProvisioner]
}
