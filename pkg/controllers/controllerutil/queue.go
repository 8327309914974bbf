package controllerutil

import (
	"kplane/pkg/clock"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// NewQueue returns the workqueue of the controller called name: the
// default controller rate limiter (5 ms → 1000 s per key, 10 qps overall)
// on clk (nil: the wall clock), and the informers' teaching trace so that
// --trace-informers follows a key from the handler into the worker; and
// the informers' debug journal, where the queue shows its live state and
// its workers record their syncs.
func NewQueue(name string, clk clock.Clock, informers *informer.SharedInformerFactory) *workqueue.Queue[string] {
	if clk == nil {
		clk = clock.Real{}
	}
	return workqueue.New(workqueue.Options[string]{
		Name:        name,
		Clock:       clk,
		RateLimiter: workqueue.DefaultControllerRateLimiter[string](clk),
		Trace:       informers.Tracer().QueueTrace(name),
		Journal:     informers.Journal(),
	})
}
