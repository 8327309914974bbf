package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/debug"
)

// The compaction fault (`ctl fault compact`): compact etcd to now and drop
// every watch, so that every client's informer meets 410 Gone and relists.
//
// Clients learn of a compaction the way upstream's do: their watch ends,
// they watch again from the last resourceVersion they saw, and that
// resourceVersion is gone — the apiserver answers with an ERROR event
// carrying a 410 Expired Status (watch.go), and the informer lists again.
//
// For every client to meet it, no watch may start between the drop and the
// compaction, or it would resume before its resourceVersion is gone; and no
// client may see the revision compacted to, or it could resume from there.
// So the fault, in order: holds new watches at the fence, drops every
// watch (no stream delivers anything after that), compacts to a revision
// newer than everything delivered (store.CompactToNow), brings every watch
// cache up to that revision, and lets the held watches go on.
//
// The watch caches must reach the compaction revision because it was
// written outside every cache's prefix: a cache would otherwise stay behind
// it until its resource next changes, answer a relist at its older
// revision, and the client's watch from there would be gone too — a quiet
// resource's informer would relist again and again.

// compactFaultTimeout bounds the fault: dropping waits for each watch
// cache to be between two events, compacting for etcd.
const compactFaultTimeout = 30 * time.Second

// enterWatchFence holds a watch being set up while a compaction fault is
// under way, and returns the function that lets the fault proceed once the
// watch is registered (safe to call more than once).
func (s *Server) enterWatchFence() (leave func()) {
	s.watchFence.RLock()
	return sync.OnceFunc(s.watchFence.RUnlock)
}

// serveFaultCompact answers debug.PathFaultCompact.
func (s *Server) serveFaultCompact(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), compactFaultTimeout)
	defer cancel()
	result, err := s.compactAndDropWatches(ctx)
	if err != nil {
		response.WriteError(w, apierrors.NewInternalError(err))
		return
	}
	message := fmt.Sprintf("compacted etcd at revision %d; dropped %d watches", result.Revision, result.DroppedWatches)
	s.log.Info("fault injected: "+message, "revision", result.Revision, "droppedWatches", result.DroppedWatches)
	s.opts.Journal.Add(debug.Record{Type: debug.TypeEvent, Stage: "compact", Actor: "fault",
		ResourceVersion: strconv.FormatInt(result.Revision, 10), Message: message})
	debug.WriteJSON(w, result)
}

// compactAndDropWatches is the fault itself (see the top of the file).
func (s *Server) compactAndDropWatches(ctx context.Context) (debug.CompactResult, error) {
	s.watchFence.Lock()
	defer s.watchFence.Unlock()
	var result debug.CompactResult
	for res, c := range s.caches {
		n, err := c.DropWatches(ctx)
		if err != nil {
			return result, fmt.Errorf("drop the watches of %s: %w", res.plural, err)
		}
		result.DroppedWatches += n
	}
	revision, err := s.etcd.CompactToNow(ctx)
	if err != nil {
		return result, fmt.Errorf("compact etcd (after dropping %d watches): %w", result.DroppedWatches, err)
	}
	result.Revision = revision
	if err := s.waitForCaches(ctx, revision); err != nil {
		return result, fmt.Errorf("compacted etcd at revision %d: %w", revision, err)
	}
	return result, nil
}

// waitForCaches waits until every watch cache has reached revision, all at
// once: each asks etcd for a progress notification.
func (s *Server) waitForCaches(ctx context.Context, revision int64) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(s.caches))
	for res, c := range s.caches {
		wg.Go(func() {
			if err := c.WaitForRevision(ctx, revision); err != nil {
				errs <- fmt.Errorf("the watch cache of %s: %w", res.plural, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}
