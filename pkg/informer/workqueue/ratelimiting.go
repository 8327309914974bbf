package workqueue

// AddRateLimited adds item after the delay the queue's RateLimiter gives
// for it. A worker calls it when syncing item failed: the limiter counts the
// failure, so each retry of a failing key waits longer (and all retries
// together stay under the overall bucket). After ShutDown it does nothing,
// without counting a failure.
func (q *Queue[T]) AddRateLimited(item T) {
	if q.ShuttingDown() {
		return
	}
	q.AddAfter(item, q.rateLimiter.When(item))
}

// Forget tells the RateLimiter that item succeeded (or is given up on), so
// its next failure starts again from the shortest delay. It does not remove
// item from the queue. Workers call it after every successful sync.
func (q *Queue[T]) Forget(item T) {
	q.rateLimiter.Forget(item)
}

// NumRequeues returns how many times item has failed since it was last
// forgotten; controllers use it to give up after a number of retries.
func (q *Queue[T]) NumRequeues(item T) int {
	return q.rateLimiter.NumRequeues(item)
}
