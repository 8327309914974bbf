package replicaset

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// BurstReplicas is how many pods one sync creates or deletes at most
// (upstream's burstReplicas, 500): a ReplicaSet scaled from 0 to 5000 gets
// there in ten syncs, each waiting for the informer to see the previous
// one's pods, rather than in one flood of requests.
const BurstReplicas = 500

// Options configure the controller. The ReplicationController controller
// takes the same options.
type Options struct {
	Logger *slog.Logger // nil → slog.Default()
	Clock  clock.Clock  // nil → clock.Real{}
	// BurstReplicas caps the pods one sync creates or deletes; 0 means
	// BurstReplicas (500).
	BurstReplicas int
}

// Manager is the replica logic shared by the ReplicaSet and
// ReplicationController controllers (upstream's ReplicaSetController, which
// serves both). It keeps, for every owner of kind T, spec.replicas active
// pods that match the owner's selector and are controlled by it.
//
// The flow of a change: an informer event (an owner added or scaled, one
// of its pods created, deleted or relabelled) computes the owner's key and
// adds it to the workqueue — see handlers.go; a worker calls Sync(key),
// which reads the owner and the namespace's pods from the listers, claims
// its pods, creates or deletes the difference, and writes status — see
// sync.go, replicas.go and status.go. The Expectations keep a sync from
// acting twice on a cache that has not yet seen its own writes.
type Manager[T api.Object] struct {
	kind         Kind[T]
	podLister    *informer.Lister[*api.Pod]
	podControl   controllerutil.PodControl
	expectations *controllerutil.Expectations
	queue        *workqueue.Queue[string]
	clock        clock.Clock
	log          *slog.Logger

	// burstReplicas caps creates and deletes per sync.
	burstReplicas int
	// cachesSynced are the handler registrations' HasSynced: Run waits for
	// them before the first sync reads a lister.
	cachesSynced []func() bool
}

// NewManager builds the replica logic for one kind: it registers event
// handlers on the owners' informer (kind.Informer) and on the pod informer
// of informers, and creates and deletes pods through podControl. It does
// not start the informers.
func NewManager[T api.Object](kind Kind[T], informers *informer.SharedInformerFactory, podControl controllerutil.PodControl, opts Options) (*Manager[T], error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.BurstReplicas <= 0 {
		opts.BurstReplicas = BurstReplicas
	}
	pods := informers.Pods()
	m := &Manager[T]{
		kind:          kind,
		podLister:     pods.Lister(),
		podControl:    podControl,
		expectations:  controllerutil.NewExpectations(opts.Clock),
		clock:         opts.Clock,
		log:           opts.Logger.With("controller", kind.Name),
		burstReplicas: opts.BurstReplicas,
		queue:         controllerutil.NewQueue(kind.Name, opts.Clock, informers),
	}

	ownerReg, err := kind.Informer.Informer().AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc:    m.addOwner,
		UpdateFunc: m.updateOwner,
		DeleteFunc: m.deleteOwner,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: watch owners: %w", kind.Name, err)
	}
	// Every pod change reaches the owner: most are status updates (a pod
	// became ready), and a sync of an owner whose expectations are met
	// only reads local caches, so that is cheap.
	podReg, err := pods.Informer().AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc:    m.addPod,
		UpdateFunc: m.updatePod,
		DeleteFunc: m.deletePod,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: watch pods: %w", kind.Name, err)
	}
	m.cachesSynced = []func() bool{ownerReg.HasSynced, podReg.HasSynced}
	return m, nil
}

// Run waits for the caches to sync, then runs workers workers over the
// queue until ctx ends. It does not start the informers: the
// controller-manager starts the shared factory once every controller has
// registered its handlers.
func (m *Manager[T]) Run(ctx context.Context, workers int) {
	m.log.Info("starting controller", "workers", workers)
	defer m.log.Info("stopped controller")
	if !informer.WaitForCacheSync(ctx, m.cachesSynced...) {
		m.queue.ShutDown()
		return
	}
	controllerutil.RunWorkers(ctx, m.queue, workers, m.Sync, m.log)
}

// Queue returns the manager's workqueue (for tests and the
// controller-manager's views).
func (m *Manager[T]) Queue() *workqueue.Queue[string] { return m.queue }

// Expectations returns the creates and deletes the manager still waits to
// see, per owner key (for tests and logs).
func (m *Manager[T]) Expectations() *controllerutil.Expectations { return m.expectations }

// enqueue adds owner's key to the queue.
func (m *Manager[T]) enqueue(owner T) {
	key, err := informer.MetaNamespaceKeyFunc(owner)
	if err != nil {
		m.log.Error("cannot key owner", "err", err)
		return
	}
	m.queue.Add(key)
}

// enqueueAfter adds owner's key to the queue once d has passed.
func (m *Manager[T]) enqueueAfter(owner T, d time.Duration) {
	key, err := informer.MetaNamespaceKeyFunc(owner)
	if err != nil {
		m.log.Error("cannot key owner", "err", err)
		return
	}
	m.queue.AddAfter(key, d)
}
