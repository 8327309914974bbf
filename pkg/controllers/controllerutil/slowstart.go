package controllerutil

import "sync"

// SlowStartInitialBatchSize is the size of the first batch SlowStartBatch
// runs (upstream's value). One call tests the water: if the apiserver
// refuses the first pod (a quota is full, the template is invalid), the
// controller has sent one request and recorded one FailedCreate event
// instead of hundreds.
const SlowStartInitialBatchSize = 1

// SlowStartBatch calls fn count times, in batches that start at
// initialBatchSize and double after every batch that fully succeeds: with
// an initial size of 1 the batches are 1, 2, 4, 8, … (the last one holding
// whatever remains). The calls of one batch run concurrently; the next batch
// starts only when the whole batch has returned.
//
// The first batch with a failure is the last: SlowStartBatch waits for the
// rest of that batch, skips the remaining batches, and returns how many
// calls succeeded together with the first error. The caller accounts for
// the calls that never happened (a ReplicaSet lowers its expectations by
// count − successes, since those pods will never be seen).
//
// This is upstream's slowStartBatch (pkg/controller/replicaset), used by
// the ReplicaSet, ReplicationController, Job and DaemonSet controllers. A
// count of zero or less makes no call.
func SlowStartBatch(count, initialBatchSize int, fn func() error) (successes int, err error) {
	for _, batchSize := range SlowStartBatchSizes(count, initialBatchSize) {
		batchSuccesses, batchErrs := runBatch(batchSize, fn)
		successes += batchSuccesses
		if len(batchErrs) > 0 {
			// The calls of a batch usually fail for the same reason; report
			// the first rather than a wall of copies.
			return successes, batchErrs[0]
		}
	}
	return successes, nil
}

// SlowStartBatchSizes are the batches SlowStartBatch runs for count calls
// when every call succeeds: 10 from 1 is 1, 2, 4, 3.
func SlowStartBatchSizes(count, initialBatchSize int) []int {
	if initialBatchSize < 1 {
		initialBatchSize = 1
	}
	var sizes []int
	remaining := count
	for batchSize := min(remaining, initialBatchSize); batchSize > 0; batchSize = min(2*batchSize, remaining) {
		sizes = append(sizes, batchSize)
		remaining -= batchSize
	}
	return sizes
}

// runBatch calls fn size times concurrently and waits for all of them.
func runBatch(size int, fn func() error) (successes int, errs []error) {
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for range size {
		wg.Go(func() {
			err := fn()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			successes++
		})
	}
	wg.Wait()
	return successes, errs
}
