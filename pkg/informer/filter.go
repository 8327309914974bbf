package informer

import (
	"context"
	"sync"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// A filtering ListerWatcher keeps from another ListerWatcher only the
// objects a predicate accepts, for a client that needs a part of a
// resource the apiserver's selectors cannot name. kplane's hollow kubelets
// use it: a process of 250 hollow nodes watches every bound pod (the field
// selector spec.nodeName!=) but keeps only its own nodes' pods, so that four
// such processes do not each cache all 100 000 pods of a large cluster.
// Upstream needs no such thing, because each of its kubelets (and each of
// kubemark's hollow nodes) watches its own node's pods with
// spec.nodeName=<node>; a process of many hollow nodes would need as many
// watches (docs/performance.md, "Issue 18: scale").
//
// The predicate must depend only on fields that never change once an
// object is first seen (a pod's spec.nodeName in a watch of bound pods): an
// object that stopped matching would linger in the cache, since its last
// change is dropped rather than turned into a deletion. Bookmarks and
// errors always pass.

// FilterListWatch returns lw keeping only the objects keep accepts.
func FilterListWatch(lw ListerWatcher, keep func(api.Object) bool) ListerWatcher {
	return &filteredListWatch{inner: lw, keep: keep}
}

type filteredListWatch struct {
	inner ListerWatcher
	keep  func(api.Object) bool
}

// List returns the listed objects keep accepts, with the list's
// resourceVersion.
func (f *filteredListWatch) List(ctx context.Context, opts client.ListOptions) ([]api.Object, string, error) {
	objects, rv, err := f.inner.List(ctx, opts)
	if err != nil {
		return nil, "", err
	}
	kept := objects[:0]
	for _, obj := range objects {
		if f.keep(obj) {
			kept = append(kept, obj)
		}
	}
	clear(objects[len(kept):]) // let the dropped objects be collected
	return kept, rv, nil
}

// Watch starts the inner watch and forwards the events keep accepts.
func (f *filteredListWatch) Watch(ctx context.Context, opts client.ListOptions) (client.Watcher, error) {
	w, err := f.inner.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	fw := &filteredWatcher{inner: w, result: make(chan client.Event), stopped: make(chan struct{}), exited: make(chan struct{})}
	go fw.forward(f.keep)
	return fw, nil
}

// filteredWatcher forwards the events of inner that pass a predicate.
type filteredWatcher struct {
	inner    client.Watcher
	result   chan client.Event
	stopped  chan struct{} // closed by Stop
	stopOnce sync.Once
	exited   chan struct{} // closed when forward returns
}

func (w *filteredWatcher) forward(keep func(api.Object) bool) {
	defer close(w.exited)
	defer close(w.result)
	for ev := range w.inner.ResultChan() {
		if (ev.Type == client.Added || ev.Type == client.Modified || ev.Type == client.Deleted) && ev.Object != nil && !keep(ev.Object) {
			continue
		}
		select {
		case w.result <- ev:
		case <-w.stopped:
			return
		}
	}
}

// ResultChan delivers the kept events in order; it closes when the inner
// watch ends or Stop is called.
func (w *filteredWatcher) ResultChan() <-chan client.Event { return w.result }

// Stop ends the inner watch and waits for the forwarding goroutine.
func (w *filteredWatcher) Stop() {
	w.stopOnce.Do(func() { close(w.stopped) })
	w.inner.Stop()
	<-w.exited
}
