package scheduler

import (
	"slices"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
)

func queuePod(name string, priority int32) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, UID: name + "-uid"},
		Spec:       api.PodSpec{Priority: &priority, Containers: []api.Container{{Name: "c"}}},
	}
}

func newTestQueue() (*SchedulingQueue, *clock.Fake) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return NewSchedulingQueue(clk, time.Second, 10*time.Second, 60*time.Second), clk
}

// where reports which waiting place holds key.
func where(q *SchedulingQueue, key string) string {
	active, backoff, unschedulable := q.PendingPods()
	switch {
	case slices.Contains(active, key):
		return "active"
	case slices.Contains(backoff, key):
		return "backoff"
	case slices.Contains(unschedulable, key):
		return "unschedulable"
	}
	return "none"
}

func mustPop(t *testing.T, q *SchedulingQueue) *QueuedPodInfo {
	t.Helper()
	qp, ok := q.Pop()
	if !ok {
		t.Fatal("queue closed")
	}
	return qp
}

func TestQueueOrdersByPriorityThenArrival(t *testing.T) {
	q, clk := newTestQueue()
	q.Add(queuePod("low-first", 0))
	clk.Step(time.Millisecond)
	q.Add(queuePod("high", 100))
	clk.Step(time.Millisecond)
	q.Add(queuePod("low-second", 0))
	q.Add(queuePod("low-third", 0)) // same timestamp: arrival order still holds
	var got []string
	for range 4 {
		got = append(got, mustPop(t, q).Pod.Name)
	}
	want := []string{"high", "low-first", "low-second", "low-third"}
	if !slices.Equal(got, want) {
		t.Fatalf("pop order = %v, want %v", got, want)
	}
}

func TestQueueBackoffDoublesUpToTheMaximum(t *testing.T) {
	q, clk := newTestQueue()
	q.Add(queuePod("p", 0))
	// Expected back-off after attempt n: 1s, 2s, 4s, 8s, 10s, 10s.
	for attempt, want := range []time.Duration{1, 2, 4, 8, 10, 10} {
		want *= time.Second
		qp := mustPop(t, q)
		if qp.Attempts != attempt+1 {
			t.Fatalf("attempts = %d, want %d", qp.Attempts, attempt+1)
		}
		qp.Unschedulable = false // an error, not "no node fits": straight to back-off
		q.AddUnschedulableIfNotPresent(qp)
		if got := where(q, "default/p"); got != "backoff" {
			t.Fatalf("attempt %d: pod in %s, want backoff", attempt+1, got)
		}
		clk.Step(want - time.Millisecond)
		q.FlushBackoffQCompleted()
		if got := where(q, "default/p"); got != "backoff" {
			t.Fatalf("attempt %d: pod left back-off before %v", attempt+1, want)
		}
		clk.Step(time.Millisecond)
		q.FlushBackoffQCompleted()
		if got := where(q, "default/p"); got != "active" {
			t.Fatalf("attempt %d: pod in %s after %v, want active", attempt+1, got, want)
		}
	}
}

func TestUnschedulablePodsWaitForAnEvent(t *testing.T) {
	q, clk := newTestQueue()
	q.Add(queuePod("p", 0))
	qp := mustPop(t, q)
	qp.Unschedulable = true
	q.AddUnschedulableIfNotPresent(qp)
	if got := where(q, "default/p"); got != "unschedulable" {
		t.Fatalf("pod in %s, want unschedulable", got)
	}
	// Back-off alone does not release it…
	clk.Step(5 * time.Second)
	q.FlushBackoffQCompleted()
	if got := where(q, "default/p"); got != "unschedulable" {
		t.Fatalf("pod in %s, want still unschedulable", got)
	}
	// …a cluster event does, straight to active once its back-off is over.
	if moved := q.MoveAllToActiveOrBackoffQueue(eventNodeAdd); moved != 1 {
		t.Fatalf("moved %d pods, want 1", moved)
	}
	if got := where(q, "default/p"); got != "active" {
		t.Fatalf("pod in %s after NodeAdd, want active", got)
	}
}

func TestMoveDuringBackoffGoesToBackoffQ(t *testing.T) {
	q, _ := newTestQueue()
	q.Add(queuePod("p", 0))
	qp := mustPop(t, q)
	qp.Unschedulable = true
	q.AddUnschedulableIfNotPresent(qp)
	q.MoveAllToActiveOrBackoffQueue(eventNodeAdd) // at once: still backing off
	if got := where(q, "default/p"); got != "backoff" {
		t.Fatalf("pod in %s, want backoff", got)
	}
}

func TestEventDuringAttemptIsNotMissed(t *testing.T) {
	q, _ := newTestQueue()
	q.Add(queuePod("p", 0))
	qp := mustPop(t, q)
	// A node appears while the attempt runs; the attempt then fails with
	// the nodes it saw. Waiting for the next event would miss this one.
	q.MoveAllToActiveOrBackoffQueue(eventNodeAdd)
	qp.Unschedulable = true
	q.AddUnschedulableIfNotPresent(qp)
	if got := where(q, "default/p"); got != "backoff" {
		t.Fatalf("pod in %s, want backoff", got)
	}
	// The next attempt, with no event during it, does wait.
	q.Add(queuePod("other", 0))
	other := mustPop(t, q)
	other.Unschedulable = true
	q.AddUnschedulableIfNotPresent(other)
	if got := where(q, "default/other"); got != "unschedulable" {
		t.Fatalf("pod in %s, want unschedulable", got)
	}
}

func TestUnschedulableLeftoverIsRetriedAfterTheLimit(t *testing.T) {
	q, clk := newTestQueue()
	q.Add(queuePod("p", 0))
	qp := mustPop(t, q)
	qp.Unschedulable = true
	q.AddUnschedulableIfNotPresent(qp)
	clk.Step(60 * time.Second)
	q.FlushUnschedulablePodsLeftover()
	if got := where(q, "default/p"); got != "unschedulable" {
		t.Fatalf("pod in %s at exactly 60s, want unschedulable", got)
	}
	clk.Step(time.Second)
	q.FlushUnschedulablePodsLeftover()
	if got := where(q, "default/p"); got != "active" {
		t.Fatalf("pod in %s after 61s, want active", got)
	}
}

func TestUpdateOfUnschedulablePod(t *testing.T) {
	q, clk := newTestQueue()
	old := queuePod("p", 0)
	q.Add(old)
	qp := mustPop(t, q)
	qp.Unschedulable = true
	q.AddUnschedulableIfNotPresent(qp)
	clk.Step(2 * time.Second)

	statusOnly := api.DeepCopy(old)
	statusOnly.Status.Conditions = []api.PodCondition{{Type: api.PodScheduled, Status: api.ConditionFalse}}
	q.Update(old, statusOnly)
	if got := where(q, "default/p"); got != "unschedulable" {
		t.Fatalf("status-only update moved the pod to %s", got)
	}
	relabelled := api.DeepCopy(statusOnly)
	relabelled.Labels = map[string]string{"tier": "web"}
	q.Update(statusOnly, relabelled)
	if got := where(q, "default/p"); got != "active" {
		t.Fatalf("after a label change pod in %s, want active", got)
	}
	if qp := mustPop(t, q); qp.Pod.Labels["tier"] != "web" {
		t.Fatal("the queue should hand out the updated pod")
	}
}

func TestDeleteDuringAttemptDropsThePod(t *testing.T) {
	q, _ := newTestQueue()
	p := queuePod("p", 0)
	q.Add(p)
	qp := mustPop(t, q)
	q.Add(p) // a re-delivered add while in flight must not duplicate it
	q.Delete(p)
	qp.Unschedulable = true
	q.AddUnschedulableIfNotPresent(qp)
	if a, b, u := q.PendingPods(); len(a)+len(b)+len(u) != 0 {
		t.Fatalf("queue holds %v %v %v, want nothing", a, b, u)
	}
}

func TestDeleteRemovesFromEveryPlace(t *testing.T) {
	q, _ := newTestQueue()
	// park adds a pod and fails one attempt of it.
	park := func(name string, unschedulable bool) {
		q.Add(queuePod(name, 0))
		qp := mustPop(t, q)
		qp.Unschedulable = unschedulable
		q.AddUnschedulableIfNotPresent(qp)
	}
	park("backoff", false)
	park("unschedulable", true)
	q.Add(queuePod("active", 0))
	a, b, u := q.PendingPods()
	if len(a) != 1 || len(b) != 1 || len(u) != 1 {
		t.Fatalf("setup: active %v backoff %v unschedulable %v", a, b, u)
	}
	for _, name := range []string{"active", "backoff", "unschedulable"} {
		q.Delete(queuePod(name, 0))
	}
	if a, b, u := q.PendingPods(); len(a)+len(b)+len(u) != 0 {
		t.Fatalf("after deletes: %v %v %v", a, b, u)
	}
}

func TestPopBlocksUntilAddAndCloseWakesIt(t *testing.T) {
	q, _ := newTestQueue()
	got := make(chan string)
	go func() {
		for {
			qp, ok := q.Pop()
			if !ok {
				close(got)
				return
			}
			got <- qp.Pod.Name
		}
	}()
	q.Add(queuePod("p", 0))
	if name := <-got; name != "p" {
		t.Fatalf("popped %q", name)
	}
	q.Close()
	if _, open := <-got; open {
		t.Fatal("Pop should report the queue closed")
	}
}

// A pod deleted and created again under the same name while its attempt
// runs is a new pod: it is queued when the attempt ends, the old one is not.
func TestRecreatedDuringAttempt(t *testing.T) {
	q, _ := newTestQueue()
	old := queuePod("web-0", 0)
	q.Add(old)
	qp := mustPop(t, q)
	q.Delete(old)
	recreated := queuePod("web-0", 0)
	recreated.UID = "web-0-second"
	q.Add(recreated)
	qp.Unschedulable = true
	q.AddUnschedulableIfNotPresent(qp)
	next := mustPop(t, q)
	if next.Pod.UID != "web-0-second" || next.Attempts != 1 {
		t.Fatalf("queued %s (attempts %d), want the recreated pod on its first attempt", next.Pod.UID, next.Attempts)
	}
	if a, b, u := q.PendingPods(); len(a)+len(b)+len(u) != 0 {
		t.Fatalf("the old pod is still queued: %v %v %v", a, b, u)
	}
}
