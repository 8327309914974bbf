package controllerutil

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/pkg/informer/workqueue"
)

// SyncFunc is one controller's reconcile step: read the desired and actual
// state for key ("namespace/name") from listers and make one step toward
// the desired state. An error requeues the key with back-off; a nil error
// forgets its back-off.
type SyncFunc func(ctx context.Context, key string) error

// errDoNotRetry marks errors that retrying cannot fix (a malformed selector,
// say): the key is dropped instead of requeued.
var errDoNotRetry = errors.New("not retried")

// DoNotRetry wraps err so that the worker loop logs it and forgets the key
// instead of requeueing it. Use it for errors that only a new version of the
// object can fix — its next change enqueues the key again anyway.
func DoNotRetry(err error) error {
	if err == nil {
		return nil
	}
	return &doNotRetryError{err}
}

type doNotRetryError struct{ err error }

func (e *doNotRetryError) Error() string        { return e.err.Error() }
func (e *doNotRetryError) Unwrap() error        { return e.err }
func (e *doNotRetryError) Is(target error) bool { return target == errDoNotRetry }

func isDoNotRetry(err error) bool { return errors.Is(err, errDoNotRetry) }

// RunWorkers starts workers goroutines that each loop over ProcessNext, and
// blocks until ctx ends. It then shuts the queue down and waits for the
// workers to finish the keys they hold. This is the sample-controller's
// Run/runWorker pair, written once for every controller.
func RunWorkers(ctx context.Context, queue *workqueue.Queue[string], workers int, syncKey SyncFunc, logger *slog.Logger) {
	if workers < 1 {
		workers = 1
	}
	queueDepth.queues.Store(queue, struct{}{})
	defer queueDepth.queues.Delete(queue)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ProcessNext(ctx, queue, syncKey, logger) {
			}
		})
	}
	<-ctx.Done()
	queue.ShutDown()
	wg.Wait()
}

// ProcessNext takes one key from the queue, syncs it and tells the queue
// how it went: Forget on success (its back-off resets), AddRateLimited on
// a retriable error (it comes back after 5 ms, 10 ms, 20 ms, … up to
// 1000 s), and Done either way so that a key re-added during the sync is
// processed again. It returns false once the queue is shut down.
func ProcessNext(ctx context.Context, queue *workqueue.Queue[string], syncKey SyncFunc, logger *slog.Logger) bool {
	key, shutdown := queue.Get()
	if shutdown {
		return false
	}
	defer queue.Done(key)

	if queue.Journal().Enabled() {
		// The writes the sync makes are recorded with the controller's
		// name as their actor (see debug.Journal.WriteHook).
		ctx = client.WithActor(ctx, queue.Name())
	}
	start := time.Now()
	err := syncKey(ctx, key)
	observeSync(queue.Name(), start, err)
	recordSync(queue, key, start, err)
	switch {
	case err == nil:
		queue.Forget(key)
	case isDoNotRetry(err):
		logger.Warn("sync failed; not retrying", "key", key, "err", err)
		queue.Forget(key)
	case ctx.Err() != nil:
		// Shutting down: the key is not lost, the next leader lists it again.
	case apierrors.IsConflict(err):
		// Routine under optimistic concurrency: the cache was a step behind
		// this controller's own last write. Retried quietly.
		logger.Debug("sync hit a conflict; requeueing", "key", key, "err", err)
		queue.AddRateLimited(key)
	default:
		logger.Info("sync failed; requeueing with back-off", "key", key, "err", err, "requeues", queue.NumRequeues(key))
		queue.AddRateLimited(key)
	}
	return true
}

// recordSync writes the sync of key into the queue's debug journal, if it
// has one: how long it took and how it ended.
func recordSync(queue *workqueue.Queue[string], key string, start time.Time, err error) {
	j := queue.Journal()
	if !j.Enabled() {
		return
	}
	detail := "queue=" + queue.Name() + " took=" + time.Since(start).Round(time.Microsecond).String()
	r := debug.Record{Type: debug.TypeTrace, Stage: debug.StageSync, Actor: queue.Name(), Key: key}
	if err != nil {
		detail += " result=error"
		r.Message = err.Error()
	} else {
		detail += " result=ok"
	}
	r.Detail = detail
	j.Add(r)
}
