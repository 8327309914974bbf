//go:build scale

package scale

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// podTracker follows every pod of the run's namespace from a watch opened
// before the first create, and records when it first saw each pod bound to
// a node and Running (as the kubelet reported it). When the server ends
// the watch (its slow-watcher policy) it lists and watches again, as a
// reflector does; a pod that became Running in between is then stamped
// with the relist's time, later than it was, never earlier.
type podTracker struct {
	changed chan struct{} // poked (capacity 1) on every pod event

	mu sync.Mutex
	// bound and running hold, by pod name, when the watch first saw the
	// pod with a node and with phase Running; nodeOf is the pod's node.
	bound, running map[string]time.Time
	nodeOf         map[string]string
	relists        int
	err            error
}

// startTracker lists and watches the pods of namespace until ctx ends.
func startTracker(ctx context.Context, t *testing.T, c *client.Client, namespace string) *podTracker {
	t.Helper()
	tr := &podTracker{changed: make(chan struct{}, 1), bound: map[string]time.Time{}, running: map[string]time.Time{}, nodeOf: map[string]string{}}
	list, err := c.Pods(namespace).List(ctx, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Items {
		tr.observe(p)
	}
	w, err := c.Pods(namespace).Watch(ctx, client.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	go tr.follow(ctx, c, namespace, w)
	return tr
}

func (tr *podTracker) follow(ctx context.Context, c *client.Client, namespace string, w client.Watcher) {
	for {
		for ev := range w.ResultChan() {
			if p, ok := ev.Object.(*api.Pod); ok {
				tr.observe(p)
			}
		}
		w.Stop()
		if ctx.Err() != nil {
			return
		}
		list, err := c.Pods(namespace).List(ctx, client.ListOptions{})
		if err == nil {
			for _, p := range list.Items {
				tr.observe(p)
			}
			w, err = c.Pods(namespace).Watch(ctx, client.ListOptions{ResourceVersion: list.ResourceVersion})
		}
		tr.mu.Lock()
		tr.relists++
		if err != nil && ctx.Err() == nil {
			tr.err = fmt.Errorf("relist pods after the watch ended: %w", err)
		}
		tr.mu.Unlock()
		tr.poke()
		if err != nil {
			return
		}
	}
}

func (tr *podTracker) observe(p *api.Pod) {
	now := time.Now()
	tr.mu.Lock()
	if _, ok := tr.bound[p.Name]; !ok && p.Spec.NodeName != "" {
		tr.bound[p.Name] = now
		tr.nodeOf[p.Name] = p.Spec.NodeName
	}
	if _, ok := tr.running[p.Name]; !ok && p.Status.Phase == api.PodRunning {
		tr.running[p.Name] = now
	}
	tr.mu.Unlock()
	tr.poke()
}

func (tr *podTracker) poke() {
	select {
	case tr.changed <- struct{}{}:
	default:
	}
}

// counts returns how many pods the watch has seen bound and Running.
func (tr *podTracker) counts() (bound, running int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.bound), len(tr.running)
}

// waitFor waits until done(bound, running) holds, and fails with the last
// counts after timeout or when the watch fails.
func (tr *podTracker) waitFor(ctx context.Context, t *testing.T, what string, timeout time.Duration, done func(bound, running int) bool) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		tr.mu.Lock()
		bound, running, err := len(tr.bound), len(tr.running), tr.err
		tr.mu.Unlock()
		switch {
		case err != nil:
			t.Fatalf("waiting for %s: %v", what, err)
		case done(bound, running):
			return
		}
		select {
		case <-tr.changed:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: the run's deadline passed with %d pods bound, %d Running", what, bound, running)
		case <-deadline.C:
			t.Fatalf("waiting for %s: %v passed with %d pods bound, %d Running", what, timeout, bound, running)
		}
	}
}

// podsPerNode counts the pods the watch has seen bound, by node.
func (tr *podTracker) podsPerNode() map[string]int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	n := map[string]int{}
	for _, node := range tr.nodeOf {
		n[node]++
	}
	return n
}

// runningAt returns when the pod named name was first seen Running.
func (tr *podTracker) runningAt(name string) (time.Time, bool) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	at, ok := tr.running[name]
	return at, ok
}

// boundAt returns when the pod named name was first seen bound.
func (tr *podTracker) boundAt(name string) (time.Time, bool) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	at, ok := tr.bound[name]
	return at, ok
}

// relistCount is how many times the server ended the tracker's watch and
// it listed again.
func (tr *podTracker) relistCount() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.relists
}
