// Package workqueue is the queue between a controller's event handlers and
// its workers.
//
// Event handlers never reconcile anything themselves: they compute a key
// ("namespace/name") and Add it here. Workers loop on Get, reconcile the key,
// and call Done. Because a key stands for "the object is out of date", not
// for one particular change, the queue can merge and reorder freely as long
// as it keeps the guarantees below. They mirror client-go's util/workqueue,
// and each one is tested directly in this package's tests.
//
//   - Deduplicated: a key added many times before a worker gets it is handed
//     out once. Ten updates to one Deployment mean one reconcile, not ten.
//   - Exclusive: a key is never handed to two workers at the same time, so
//     a controller's sync for one object never races with itself.
//   - Re-adds honoured: a key added while a worker is processing it is handed
//     out again after that worker calls Done, exactly once however many times
//     it was added meanwhile. The worker may have read the object before the
//     change that caused the Add; this second pass is how it sees it.
//   - Fair: keys are handed out in the order they were first added (FIFO).
//   - Nothing lost: every Add accepted before ShutDown is followed by a Get
//     of that key which returns after the Add (merged with other Adds, but
//     never dropped). ShutDown refuses new keys yet lets workers drain the
//     ones already queued; Get reports shutdown only once the queue is empty.
//
// The state behind those guarantees is three sets, named as upstream names
// them, and a student can look at them with Queue.Debug:
//
//   - queue: keys waiting for a worker, in order.
//   - dirty: keys that need processing. Every key in queue is dirty.
//   - processing: keys a worker holds between Get and Done.
//
// A key that is both dirty and processing is the "re-added while processing"
// case: it is not in queue (that would let a second worker take it) and Done
// moves it there.
//
// On top of the basic queue sit two ways to add a key later. AddAfter
// (delaying.go) parks a key until a delay has passed on the queue's Clock.
// AddRateLimited (ratelimiting.go) asks a RateLimiter how long that delay
// should be: by default the larger of a per-key exponential back-off (5 ms
// doubling to 1000 s) and an overall token bucket (10 per second, bursts of
// 100), exactly client-go's DefaultControllerRateLimiter. A worker calls
// Forget when a key succeeds, so its next failure starts from 5 ms again.
//
// The canonical worker loop is:
//
//	for {
//		key, shutdown := q.Get()
//		if shutdown {
//			return
//		}
//		err := sync(ctx, key)
//		if err == nil {
//			q.Forget(key) // success: reset the key's back-off
//		} else {
//			q.AddRateLimited(key) // failure: retry later, later each time
//		}
//		q.Done(key)
//	}
package workqueue
