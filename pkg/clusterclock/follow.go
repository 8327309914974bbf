package clusterclock

import (
	"context"
	"fmt"
	"log/slog"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/informer"
)

// Follower keeps a component's clock.Virtual on the cluster clock: an
// informer watches the ConfigMap kube-system/kplane-clock, and each new
// offset it sees moves the clock forward. Build it with NewFollower, start
// it with Start before anything reads the clock, stop it with Stop.
type Follower struct {
	clock   *clock.Virtual
	log     *slog.Logger
	factory *informer.SharedInformerFactory
	clocks  informer.TypedInformer[*api.ConfigMap]
}

// NewFollower returns a follower that moves v through c's view of the
// cluster clock.
func NewFollower(c *client.Client, v *clock.Virtual, log *slog.Logger) *Follower {
	if log == nil {
		log = slog.Default()
	}
	// Its own factory, watching one object: the component's shared
	// factories stay as they are, and no component caches every ConfigMap
	// of the cluster to read one. The informer waits on the wall clock: its
	// back-off must not depend on the clock it is there to move.
	factory := informer.NewSharedInformerFactory(c, 0,
		informer.WithNamespace(Namespace), informer.WithLogger(log), informer.WithClock(clock.Real{}),
		informer.WithTweakListOptions(func(o *client.ListOptions) { o.FieldSelector = "metadata.name=" + Name }))
	f := &Follower{clock: v, log: log.With("clock", Namespace+"/"+Name), factory: factory, clocks: factory.ConfigMaps()}
	return f
}

// Start watches the cluster clock until ctx ends or Stop is called. It
// returns once the clock holds the cluster's current offset, so that what
// the component does next already runs on cluster time. A cluster without
// the ConfigMap is not an error: the clock keeps its offset and moves when
// the ConfigMap appears (the apiserver creates it when it runs with
// --virtual-clock).
func (f *Follower) Start(ctx context.Context) error {
	_, err := f.clocks.Informer().AddEventHandler(informer.ResourceEventHandlerFuncs{
		AddFunc:    f.observe,
		UpdateFunc: func(_, obj api.Object) { f.observe(obj) },
		DeleteFunc: func(any) {
			f.log.Warn("cluster clock ConfigMap deleted; the clock keeps its offset", "offset", f.clock.Offset())
		},
	})
	if err != nil {
		return fmt.Errorf("follow cluster clock: %w", err)
	}
	f.factory.Start(ctx)
	if !informer.WaitForCacheSync(ctx, f.clocks.Informer().HasSynced) {
		return fmt.Errorf("follow cluster clock: %w", ctx.Err())
	}
	// The handler may not have run yet for the first list; read the cache.
	cm, err := f.clocks.Lister().Namespace(Namespace).Get(Name)
	if err != nil {
		f.log.Warn("no cluster clock yet; running on the wall clock until it appears (is the apiserver running with --virtual-clock?)")
		return nil
	}
	f.observe(cm)
	f.log.Info("following the cluster clock", "offset", f.clock.Offset())
	return nil
}

// Stop stops watching and waits until the informer has returned.
func (f *Follower) Stop() { f.factory.Shutdown() }

// Follow starts a Follower that keeps v on the cluster clock, as a
// component started with --virtual-clock does first thing in Run, and
// returns its Stop. With a nil v (the component runs on another clock) it
// does nothing and stop is a no-op.
func Follow(ctx context.Context, c *client.Client, v *clock.Virtual, log *slog.Logger) (stop func(), err error) {
	if v == nil {
		return func() {}, nil
	}
	f := NewFollower(c, v, log)
	if err := f.Start(ctx); err != nil {
		return nil, err
	}
	return f.Stop, nil
}

// observe moves the clock to the offset obj holds.
func (f *Follower) observe(obj api.Object) {
	cm, ok := obj.(*api.ConfigMap)
	if !ok || cm.Namespace != Namespace || cm.Name != Name {
		return
	}
	offset, err := Offset(cm)
	if err != nil {
		f.log.Error("ignoring the cluster clock", "err", err)
		return
	}
	if f.clock.SetOffset(offset) {
		f.log.Debug("cluster clock moved", "offset", offset)
	}
}
