package chaos

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// retryDelay is the pause before the watcher tries again after a failed
// list or watch: short, because a killed apiserver is back within seconds
// and every second away is a second of events checked late.
const retryDelay = 200 * time.Millisecond

// PodWatcher keeps a namespace's pods from a list and a watch, as a
// reflector does (pkg/informer's reflector.go, client-go's
// tools/cache/reflector.go): when the watch ends it resumes from the last
// resourceVersion it saw; when the server answers 410 Gone (that version was
// compacted, or an apiserver restarted without it) it lists again and
// replaces its state. After every event, and after every relist, it calls
// Check with the whole pod set.
type PodWatcher struct {
	Client    *client.Client
	Namespace string
	// Check is called with the pod set after each event (cause names the
	// event) and after each relist (cause "relist").
	Check func(now time.Time, cause string, pods []*api.Pod)

	mu sync.Mutex
	// pods holds the pods by UID, so that a pod deleted and created again
	// under its old name (a StatefulSet's) is a different entry.
	pods                        map[string]*api.Pod
	events, relists, reconnects int
}

// WatcherReport counts what a PodWatcher did.
type WatcherReport struct {
	// Events is the watch events applied (bookmarks not counted);
	// Relists the lists (the first included); Reconnects the watches
	// started again from a resourceVersion after a stream ended.
	Events, Relists, Reconnects int
}

// Report returns the watcher's counts so far.
func (w *PodWatcher) Report() WatcherReport {
	w.mu.Lock()
	defer w.mu.Unlock()
	return WatcherReport{Events: w.events, Relists: w.relists, Reconnects: w.reconnects}
}

// ResourceVersions returns the resourceVersion of every pod the watcher
// holds, by UID: compared with a fresh list once everything has settled, it
// shows that no event was lost on the way.
func (w *PodWatcher) ResourceVersions() map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]string, len(w.pods))
	for uid, pod := range w.pods {
		out[uid] = pod.ResourceVersion
	}
	return out
}

// Run lists and watches until ctx ends; it returns nil then.
func (w *PodWatcher) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		rv, err := w.relist(ctx)
		if err != nil {
			sleep(ctx, retryDelay)
			continue
		}
		w.watchFrom(ctx, rv)
	}
	return nil
}

// relist replaces the pod set with a fresh list and checks it.
func (w *PodWatcher) relist(ctx context.Context) (string, error) {
	list, err := w.Client.Pods(w.Namespace).List(ctx, client.ListOptions{})
	if err != nil {
		return "", fmt.Errorf("list pods in %s: %w", w.Namespace, err)
	}
	w.mu.Lock()
	w.pods = map[string]*api.Pod{}
	for _, pod := range list.Items {
		w.pods[pod.UID] = pod
	}
	w.relists++
	w.mu.Unlock()
	w.check("relist")
	return list.ResourceVersion, nil
}

// watchFrom watches from rv, resuming from the newest resourceVersion
// seen whenever a stream ends, and returns when a relist is needed (410
// Gone) or ctx ends.
func (w *PodWatcher) watchFrom(ctx context.Context, rv string) {
	for ctx.Err() == nil {
		watcher, err := w.Client.Pods(w.Namespace).Watch(ctx, client.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if apierrors.IsGone(err) {
			return
		}
		if err != nil {
			sleep(ctx, retryDelay)
			continue
		}
		var gone bool
		rv, gone = w.consume(watcher, rv)
		watcher.Stop()
		if gone {
			return
		}
		w.mu.Lock()
		w.reconnects++
		w.mu.Unlock()
	}
}

// consume applies a stream's events until it ends. It returns the last
// resourceVersion seen and whether the server said 410 Gone.
func (w *PodWatcher) consume(watcher client.Watcher, rv string) (string, bool) {
	for ev := range watcher.ResultChan() {
		switch ev.Type {
		case client.Error:
			return rv, apierrors.IsGone(ev.Err)
		case client.Bookmark:
			rv = ev.Object.GetObjectMeta().ResourceVersion
			continue
		}
		pod, ok := ev.Object.(*api.Pod)
		if !ok {
			continue
		}
		rv = pod.ResourceVersion
		w.mu.Lock()
		if ev.Type == client.Deleted {
			delete(w.pods, pod.UID)
		} else {
			w.pods[pod.UID] = pod
		}
		w.events++
		w.mu.Unlock()
		w.check(string(ev.Type) + " " + pod.Name)
	}
	return rv, false
}

func (w *PodWatcher) check(cause string) {
	w.mu.Lock()
	pods := slices.Collect(maps.Values(w.pods))
	w.mu.Unlock()
	if w.Check != nil {
		w.Check(time.Now(), cause, pods)
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
