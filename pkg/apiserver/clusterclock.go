package apiserver

// This file puts the apiserver on the cluster clock of a cluster started
// with --virtual-clock (see pkg/clusterclock): the clock's offset lives in
// the ConfigMap kube-system/kplane-clock (api.NewClusterClock, read with
// api.ClusterClockOffset), which the server creates if it is
// missing and follows through its own watch cache, as every other
// component follows it through an informer. The server reads this clock
// for the timestamps it stamps (creation, deletion, a binding's
// PodScheduled condition, its identity Lease) and for the ages in the
// tables `kubectl get` prints.

import (
	"context"
	"fmt"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/store"
	"kplane/pkg/store/cache"
)

// readClusterClock sets the server's clock to the stored offset, if there
// is one, before bootstrap writes anything.
func (s *Server) readClusterClock(ctx context.Context) error {
	so, err := s.getStored(ctx, s.reg.byPluralAny["configmaps"], api.ClusterClockNamespace, api.ClusterClockName)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the cluster clock: %w", err)
	}
	s.observeClusterClock(so.obj)
	return nil
}

// startClusterClock creates the cluster clock's ConfigMap if it is
// missing (offset 0: the cluster clock starts at the wall clock) and
// follows it until ctx ends.
func (s *Server) startClusterClock(ctx context.Context) error {
	res := s.reg.byPluralAny["configmaps"]
	so, err := s.getStored(ctx, res, api.ClusterClockNamespace, api.ClusterClockName)
	if apierrors.IsNotFound(err) {
		so, err = s.create(ctx, res, api.NewClusterClock(0), false)
		if apierrors.IsAlreadyExists(err) {
			so, err = s.getStored(ctx, res, api.ClusterClockNamespace, api.ClusterClockName)
		}
	}
	if err != nil {
		return fmt.Errorf("start the cluster clock: %w", err)
	}
	s.observeClusterClock(so.obj)
	s.log.Info("running on the cluster clock", "configmap", api.ClusterClockNamespace+"/"+api.ClusterClockName,
		"offset", s.virtual.Offset())
	go s.followClusterClock(ctx, so.revision)
	return nil
}

// dropClusterClock deletes the cluster clock's ConfigMap of a cluster
// started before with --virtual-clock and now without: its components run
// on the wall clock, and `ctl time` must not say otherwise. Timestamps
// already stamped stay ahead of the wall clock until it catches up. A
// failure is only logged: the clock is the lesson's, not the cluster's.
func (s *Server) dropClusterClock(ctx context.Context) {
	res := s.reg.byPluralAny["configmaps"]
	so, err := s.getStored(ctx, res, api.ClusterClockNamespace, api.ClusterClockName)
	if err != nil {
		return // none: the usual case
	}
	offset, _ := api.ClusterClockOffset(so.obj.(*api.ConfigMap))
	s.log.Warn("this cluster ran on a virtual clock but the apiserver runs without --virtual-clock: back to the wall clock",
		"configmap", api.ClusterClockNamespace+"/"+api.ClusterClockName, "offset", offset)
	if _, _, err := s.delete(ctx, res, api.ClusterClockNamespace, api.ClusterClockName, api.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		s.log.Warn("delete the cluster clock", "err", err)
	}
}

// followClusterClock moves the server's clock with every change of the
// ConfigMap after revision, re-watching (from the stored state) when a
// watch ends, until ctx ends.
func (s *Server) followClusterClock(ctx context.Context, revision int64) {
	res := s.reg.byPluralAny["configmaps"]
	key := res.key(api.ClusterClockNamespace, api.ClusterClockName)
	for ctx.Err() == nil {
		w, err := s.caches[res].Watch(ctx, key, revision, false)
		if err == nil {
			revision = s.applyClusterClockEvents(ctx, w, key, revision)
			w.Stop()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second): // a watch broke: read again, watch again
		}
		if so, err := s.getStored(ctx, res, api.ClusterClockNamespace, api.ClusterClockName); err == nil {
			s.observeClusterClock(so.obj)
			revision = so.revision
		}
	}
}

// applyClusterClockEvents applies w's events for key until the watch ends
// and returns the last revision seen. The watch is on a prefix, so
// kplane-clock2 would come through too: only key counts.
func (s *Server) applyClusterClockEvents(ctx context.Context, w cache.Watcher, key string, revision int64) int64 {
	for {
		select {
		case <-ctx.Done():
			return revision
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type == store.Error {
				return revision
			}
			if ev.Key != key || (ev.Type != store.Added && ev.Type != store.Modified) {
				continue
			}
			revision = ev.Revision
			if so, ok := ev.Object.(*storedObject); ok {
				s.observeClusterClock(so.obj)
			}
		}
	}
}

// observeClusterClock moves the server's clock to the offset obj holds.
// A malformed offset is logged and ignored: the clock keeps its time.
func (s *Server) observeClusterClock(obj api.Object) {
	cm, ok := obj.(*api.ConfigMap)
	if !ok {
		return
	}
	offset, err := api.ClusterClockOffset(cm)
	if err != nil {
		s.log.Error("ignoring the cluster clock", "err", err)
		return
	}
	if s.virtual.SetOffset(offset) {
		s.log.Debug("cluster clock moved", "offset", offset)
	}
}
