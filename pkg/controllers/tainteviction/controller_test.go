package tainteviction

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

const (
	deleteFast   = "delete pods fast"
	statusFast   = "update pods/status fast"
	deletePlain  = "delete pods plain"
	statusPlain  = "update pods/status plain"
	keyFast      = "default/fast"
	keyPlain     = "default/plain"
	markingFast  = "Normal TaintManagerEviction Marking for deletion Pod default/fast"
	markingPlain = "Normal TaintManagerEviction Marking for deletion Pod default/plain"
)

// A pod with no toleration of a NoExecute taint is deleted at once: the
// DisruptionTarget condition first, then a graceful delete with its UID as
// precondition, and upstream's event.
func TestUntoleratedTaintEvictsAtOnce(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, taintedNode("node1", unreachable), podOn("plain", "node1"))
	f.sync(t, keyPlain)
	f.server.ExpectActions(t, statusPlain, deletePlain)

	withCondition := fakeapi.Sent[*api.Pod](t, f.server, statusPlain)
	found := false
	for _, c := range withCondition.Status.Conditions {
		if c.Type == api.DisruptionTarget && c.Status == api.ConditionTrue && c.Reason == "DeletionByTaintManager" &&
			c.Message == "Taint manager: deleting due to NoExecute taint" {
			found = true
		}
	}
	if !found {
		t.Errorf("status written = %+v, want DisruptionTarget=True (DeletionByTaintManager)", withCondition.Status.Conditions)
	}
	opts := fakeapi.Sent[api.DeleteOptions](t, f.server, deletePlain)
	if opts.Preconditions == nil || opts.Preconditions.UID == nil || *opts.Preconditions.UID != "uid-plain" {
		t.Errorf("delete options = %+v, want the pod's UID as precondition", opts)
	}
	if got := f.events(); !slices.Equal(got, []string{markingPlain}) {
		t.Errorf("events = %q", got)
	}
	controllertest.ExpectDecision(t, f.server.Decisions(keyPlain),
		"pod plain on node1 does not tolerate node.kubernetes.io/unreachable:NoExecute → evict now",
		map[string]string{"node": "node1", "untolerated": "1"})
	// The delete is graceful: the pod stays, Terminating, until its
	// kubelet confirms.
	if stored, ok := fakeapi.Get[*api.Pod](t, f.server, "default", "plain"); !ok || stored.DeletionTimestamp == nil {
		t.Errorf("pod after eviction = %v, %v; want it kept and marked for deletion", stored, ok)
	}
}

// A pod that tolerates the taint for tolerationSeconds is deleted that
// long after the controller first saw it on the tainted node, not before;
// until then its key waits in the queue for that moment.
func TestTolerationSecondsDelayEviction(t *testing.T) {
	for _, tt := range []struct {
		name    string
		seconds int64
	}{{"5 s", 5}, {"the default 300 s", 300}} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.server.Put(t, taintedNode("node1", unreachable), podOn("fast", "node1", tolerate(api.TaintNodeUnreachable, seconds(tt.seconds))))
			f.sync(t, keyFast)
			f.server.ExpectActions(t)
			if got := f.controller.queue.Waiting(); !slices.Equal(got, []string{keyFast}) {
				t.Errorf("waiting keys = %q, want the pod parked until its time is up", got)
			}
			evictAt := t0.Add(time.Duration(tt.seconds) * time.Second)
			controllertest.ExpectDecision(t, f.server.Decisions(keyFast),
				fmt.Sprintf("pod fast on node1 tolerates node.kubernetes.io/unreachable:NoExecute for %ds (the shortest tolerationSeconds), since 03:00:00 → evict at %s",
					tt.seconds, evictAt.Format(time.TimeOnly)),
				map[string]string{"tolerationSeconds": fmt.Sprint(tt.seconds), "evictAt": evictAt.Format(time.RFC3339)})

			f.clock.Step(time.Duration(tt.seconds-1) * time.Second)
			f.sync(t, keyFast) // one second early
			f.server.ExpectActions(t)
			f.clock.Step(time.Second)
			f.sync(t, keyFast)
			f.server.ExpectActions(t, statusFast, deleteFast)
			if got := f.events(); !slices.Equal(got, []string{markingFast}) {
				t.Errorf("events = %q", got)
			}
			if got := f.server.Decisions(keyFast); len(got) != 2 || !strings.HasSuffix(got[1].Message, ": evict now") {
				t.Errorf("decisions %+v; want the scheduled eviction once (a repeat is skipped), then evict now", got)
			}
		})
	}
}

// The shortest tolerationSeconds among the tolerations in use wins; a
// toleration for ever keeps the pod.
func TestShortestTolerationWins(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, taintedNode("node1", unreachable, notReady),
		podOn("fast", "node1", tolerate(api.TaintNodeUnreachable, seconds(60)), tolerate(api.TaintNodeNotReady, seconds(10))),
		podOn("daemon", "node1", tolerate(api.TaintNodeUnreachable, nil), tolerate(api.TaintNodeNotReady, nil)))
	f.sync(t, keyFast)
	f.server.ExpectActions(t)
	f.sync(t, "default/daemon")
	f.server.ExpectActions(t)
	f.clock.Step(10 * time.Second)
	f.sync(t, keyFast)
	f.server.ExpectActions(t, statusFast, deleteFast)
	f.clock.Step(time.Hour)
	f.sync(t, "default/daemon")
	f.server.ExpectActions(t)
	if f.controller.schedule.has("default/daemon") {
		t.Error("a pod tolerating for ever was scheduled for eviction")
	}
}

// When the taint goes before the time is up, the eviction is cancelled
// with upstream's event, and the pod stays even after the time would have
// run out.
func TestEvictionCancelledWhenTaintGoes(t *testing.T) {
	f := newFixture(t)
	pod := podOn("fast", "node1", tolerate(api.TaintNodeUnreachable, seconds(5)))
	f.server.Put(t, taintedNode("node1", unreachable), pod)
	f.sync(t, keyFast)

	f.clock.Step(3 * time.Second)
	f.server.Put(t, taintedNode("node1")) // the kubelet is back; the node lifecycle controller removed the taint
	f.sync(t, keyFast)
	f.server.ExpectActions(t)
	if got := f.events(); !slices.Equal(got, []string{"Normal TaintManagerEviction Cancelling deletion of Pod default/fast"}) {
		t.Errorf("events = %q", got)
	}
	controllertest.ExpectDecision(t, f.server.Decisions(keyFast),
		"pod fast: no NoExecute taint left that it tolerates only for a while (taint removed, or the pod gone) → cancel its scheduled eviction", nil)

	f.clock.Step(time.Minute) // the parked key comes back: nothing to do
	f.sync(t, keyFast)
	f.server.ExpectActions(t)
	if got := f.events(); len(got) != 0 {
		t.Errorf("events after the time ran out = %q, want none", got)
	}

	// Tainted again later: the clock starts afresh.
	f.server.Put(t, taintedNode("node1", unreachable))
	f.sync(t, keyFast)
	f.clock.Step(4 * time.Second)
	f.sync(t, keyFast)
	f.server.ExpectActions(t)
	f.clock.Step(time.Second)
	f.sync(t, keyFast)
	f.server.ExpectActions(t, statusFast, deleteFast)
}

// A pod deleted by someone else while its eviction was pending, or moved
// off the tainted node, is unscheduled.
func TestEvictionCancelledWhenPodGoes(t *testing.T) {
	f := newFixture(t)
	pod := podOn("fast", "node1", tolerate(api.TaintNodeUnreachable, seconds(5)))
	f.server.Put(t, taintedNode("node1", unreachable), pod)
	f.sync(t, keyFast)
	f.server.Uncache(t, pod) // the informer saw the pod's deletion
	f.sync(t, keyFast)
	f.server.ExpectActions(t)
	if f.controller.schedule.has(keyFast) {
		t.Error("deleted pod still scheduled")
	}
	if got := f.events(); !slices.Equal(got, []string{"Normal TaintManagerEviction Cancelling deletion of Pod default/fast"}) {
		t.Errorf("events = %q", got)
	}
}

// Only NoExecute taints evict; an unbound pod, a pod already being deleted
// and a pod on a node that is gone are left alone.
func TestPodsThatStay(t *testing.T) {
	f := newFixture(t)
	now := api.NewTime(t0)
	terminating := podOn("terminating", "node1")
	terminating.DeletionTimestamp = &now
	f.server.Put(t,
		taintedNode("node1", unreachable),
		taintedNode("cordoned", api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}),
		podOn("on-cordoned", "cordoned"), podOn("pending", ""), podOn("orphan", "gone"), terminating)
	for _, key := range []string{"default/on-cordoned", "default/pending", "default/orphan", "default/terminating"} {
		f.sync(t, key)
		f.server.ExpectActions(t)
	}
	if got := f.events(); len(got) != 0 {
		t.Errorf("events = %q", got)
	}
}

// Handlers enqueue the pods of a node whose NoExecute taints change, and a
// pod whose binding or tolerations change — nothing else.
func TestHandlersEnqueue(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, podOn("a", "node1"), podOn("b", "node1"), podOn("c", "node2"))
	queued := func() []string {
		var keys []string
		for f.controller.queue.Len() > 0 {
			k, _ := f.controller.queue.Get()
			f.controller.queue.Done(k)
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys
	}

	cordoned := taintedNode("node1", api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule})
	f.controller.nodeChanged(taintedNode("node1"), cordoned)
	if got := queued(); len(got) != 0 {
		t.Errorf("a NoSchedule taint enqueued %q", got)
	}
	f.controller.nodeChanged(cordoned, taintedNode("node1", unreachable))
	if got := queued(); !slices.Equal(got, []string{"default/a", "default/b"}) {
		t.Errorf("a NoExecute taint enqueued %q, want node1's pods", got)
	}

	running := podOn("a", "node1")
	relabelled := podOn("a", "node1")
	relabelled.Labels = map[string]string{"x": "y"}
	f.controller.podChanged(running, relabelled)
	if got := queued(); len(got) != 0 {
		t.Errorf("a label change enqueued %q", got)
	}
	f.controller.podChanged(running, podOn("a", "node1", tolerate(api.TaintNodeUnreachable, seconds(1))))
	if got := queued(); !slices.Equal(got, []string{"default/a"}) {
		t.Errorf("a toleration change enqueued %q", got)
	}
}

func TestMinTolerationTime(t *testing.T) {
	tests := []struct {
		name string
		used []api.Toleration
		want time.Duration
	}{
		{"none", nil, 0},
		{"for ever", []api.Toleration{tolerate("k", nil)}, forever},
		{"shortest", []api.Toleration{tolerate("k", seconds(30)), tolerate("k", nil), tolerate("k", seconds(10))}, 10 * time.Second},
		{"zero is now", []api.Toleration{tolerate("k", seconds(30)), tolerate("k", seconds(0))}, 0},
		{"negative is now", []api.Toleration{tolerate("k", seconds(-5))}, 0},
	}
	for _, tt := range tests {
		if got := minTolerationTime(tt.used); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
