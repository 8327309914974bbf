package scheduler

import (
	"container/heap"
	"context"
	"maps"
	"reflect"
	"sort"
	"sync"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/scheduler/framework"
)

// QueuedPodInfo is a pending pod as the scheduling queue holds it.
type QueuedPodInfo struct {
	// Pod is the latest version of the pod the queue has seen (shared with
	// the informer's cache: read only).
	Pod *api.Pod
	// Key is "namespace/name".
	Key string
	// Timestamp is when the pod last entered the queue: when it was
	// created, or when its last attempt failed. Back-off counts from it.
	Timestamp time.Time
	// Attempts counts the scheduling attempts so far; Pop increments it.
	Attempts int
	// Unschedulable is set by the scheduler before requeueing: true when
	// the last attempt found no fitting node (the pod then waits for a
	// cluster event), false when it failed for another reason, such as a
	// rejected binding (the pod is simply retried after its back-off).
	Unschedulable bool

	// seq breaks ties between equal timestamps so the activeQ stays FIFO.
	seq uint64
	// heapIndex is the pod's position in activeQ or backoffQ.
	heapIndex int
}

// inFlightPod is a pod that Pop handed out and whose attempt has not ended.
type inFlightPod struct {
	// cycle is the scheduling cycle of the attempt.
	cycle int64
	// updated is set when the pod's spec or labels changed during the
	// attempt: the attempt may have used stale data, so a failure is
	// retried after back-off instead of waiting for an event.
	updated bool
	// deleted is set when the pod was deleted during the attempt.
	deleted bool
	// uid is the UID of the pod being tried, and recreated a pod that
	// arrived under the same name with another UID during the attempt
	// (deleted and created again). It is queued when the attempt ends.
	uid       string
	recreated *api.Pod
}

// SchedulingQueue holds the pods waiting for a node. It mirrors upstream's
// PriorityQueue (pkg/scheduler/backend/queue) with its three places a pod
// can wait:
//
//   - activeQ: pods ready to be tried, a heap ordered by priority
//     (spec.priority, higher first) and then by how long they have
//     waited. Pop takes from here.
//   - backoffQ: pods that failed recently and must wait out their back-off
//     (1 s, 2 s, 4 s … capped at 10 s by attempt) before they go back to
//     activeQ, a heap ordered by when their back-off ends. It is flushed
//     every second.
//   - unschedulablePods: pods for which no node fitted. Trying again is
//     pointless until the cluster changes, so they wait for a cluster
//     event — a node added or changed, an assigned pod deleted, a
//     PersistentVolumeClaim or PersistentVolume added or changed — that
//     moves them all back (MoveAllToActiveOrBackoffQueue), or at most
//     PodMaxInUnschedulablePodsDuration.
//
// A pod is in at most one of them, or "in flight": handed out by Pop and
// not yet returned (AddUnschedulableIfNotPresent) or finished (Done).
//
// One race needs care: a node may appear while a pod's attempt is running
// and has already looked at the nodes. If that pod then went to
// unschedulablePods it would miss the event that could have helped it. So
// every move request records the current scheduling cycle
// (moveRequestCycle), and a pod whose attempt started no later than the
// last move request goes to backoffQ instead. Upstream used this same
// scheme before its queueing hints.
type SchedulingQueue struct {
	clock              clock.Clock
	initialBackoff     time.Duration
	maxBackoff         time.Duration
	maxInUnschedulable time.Duration

	mu   sync.Mutex
	cond *sync.Cond
	// activeQ, backoffQ and unschedulablePods are the three waiting
	// places; inFlight the pods being tried. A key is in at most one of
	// the four.
	activeQ           *podHeap
	backoffQ          *podHeap
	unschedulablePods map[string]*QueuedPodInfo
	inFlight          map[string]*inFlightPod
	// schedulingCycle counts Pops; moveRequestCycle is its value at the
	// last MoveAllToActiveOrBackoffQueue.
	schedulingCycle  int64
	moveRequestCycle int64
	seq              uint64
	closed           bool
}

// NewSchedulingQueue returns an empty queue with the given back-off
// bounds and unschedulable timeout, reading time from clk.
func NewSchedulingQueue(clk clock.Clock, initialBackoff, maxBackoff, maxInUnschedulable time.Duration) *SchedulingQueue {
	q := &SchedulingQueue{
		clock:              clk,
		initialBackoff:     initialBackoff,
		maxBackoff:         maxBackoff,
		maxInUnschedulable: maxInUnschedulable,
		unschedulablePods:  map[string]*QueuedPodInfo{},
		inFlight:           map[string]*inFlightPod{},
		moveRequestCycle:   -1,
	}
	q.cond = sync.NewCond(&q.mu)
	q.activeQ = &podHeap{less: activeLess}
	q.backoffQ = &podHeap{less: func(a, b *QueuedPodInfo) bool {
		return q.backoffExpiry(a).Before(q.backoffExpiry(b))
	}}
	return q
}

// activeLess orders activeQ: higher priority first, then first come.
func activeLess(a, b *QueuedPodInfo) bool {
	pa, pb := podPriority(a.Pod), podPriority(b.Pod)
	if pa != pb {
		return pa > pb
	}
	if !a.Timestamp.Equal(b.Timestamp) {
		return a.Timestamp.Before(b.Timestamp)
	}
	return a.seq < b.seq
}

// podPriority is spec.priority, 0 when unset (no PriorityClass).
func podPriority(pod *api.Pod) int32 {
	if pod.Spec.Priority == nil {
		return 0
	}
	return *pod.Spec.Priority
}

// Add queues a new pending pod in activeQ. A pod the queue already holds
// just has its object replaced.
func (q *SchedulingQueue) Add(pod *api.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	key := framework.PodKey(pod)
	if f, ok := q.inFlight[key]; ok {
		if pod.UID != f.uid {
			f.recreated = pod
		}
		return
	}
	if qp, ok := q.unschedulablePods[key]; ok {
		qp.Pod = pod
		return
	}
	if qp := q.find(key); qp != nil {
		q.replacePod(qp, pod)
		return
	}
	q.pushActive(&QueuedPodInfo{Pod: pod, Key: key, Timestamp: q.clock.Now()})
}

// Update records a new version of a pending pod. A pod waiting in
// unschedulablePods whose spec, labels or annotations changed may fit now,
// so it moves on (to backoffQ if its back-off has not ended); a status-only
// change (such as the scheduler's own PodScheduled condition) leaves it
// waiting.
func (q *SchedulingQueue) Update(oldPod, newPod *api.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	key := framework.PodKey(newPod)
	if f, ok := q.inFlight[key]; ok {
		switch {
		case newPod.UID != f.uid:
			f.recreated = newPod
		case isPodUpdated(oldPod, newPod):
			f.updated = true
		}
		return
	}
	if qp, ok := q.unschedulablePods[key]; ok {
		qp.Pod = newPod
		if isPodUpdated(oldPod, newPod) {
			delete(q.unschedulablePods, key)
			q.moveToActiveOrBackoff(qp)
		}
		return
	}
	if qp := q.find(key); qp != nil {
		q.replacePod(qp, newPod)
		return
	}
	q.pushActive(&QueuedPodInfo{Pod: newPod, Key: key, Timestamp: q.clock.Now()})
}

// Delete forgets a pod: it was deleted, bound, or handed to another
// scheduler.
func (q *SchedulingQueue) Delete(pod *api.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	key := framework.PodKey(pod)
	if f, ok := q.inFlight[key]; ok {
		if pod.UID == f.uid {
			f.deleted = true
		} else if f.recreated != nil && f.recreated.UID == pod.UID {
			f.recreated = nil
		}
		return
	}
	if _, ok := q.unschedulablePods[key]; ok {
		delete(q.unschedulablePods, key)
		return
	}
	if i := q.activeQ.indexOf(key); i >= 0 {
		heap.Remove(q.activeQ, i)
		return
	}
	if i := q.backoffQ.indexOf(key); i >= 0 {
		heap.Remove(q.backoffQ, i)
	}
}

// Pop blocks until activeQ has a pod or the queue is closed, and hands out
// the first pod (false once closed). The pod is in flight until the
// scheduler calls Done or AddUnschedulableIfNotPresent for it.
func (q *SchedulingQueue) Pop() (*QueuedPodInfo, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.activeQ.Len() == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return nil, false
	}
	qp := heap.Pop(q.activeQ).(*QueuedPodInfo)
	qp.Attempts++
	q.schedulingCycle++
	q.inFlight[qp.Key] = &inFlightPod{cycle: q.schedulingCycle, uid: qp.Pod.UID}
	return qp, true
}

// Done ends a pod's attempt without requeueing it: the pod was assumed
// onto a node and is being bound.
func (q *SchedulingQueue) Done(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.endAttemptLocked(key)
}

// endAttemptLocked takes key out of flight and queues a pod that was
// recreated under its name meanwhile. Caller holds mu.
func (q *SchedulingQueue) endAttemptLocked(key string) (*inFlightPod, bool) {
	f, ok := q.inFlight[key]
	if !ok {
		return nil, false
	}
	delete(q.inFlight, key)
	if f.recreated != nil {
		q.pushActive(&QueuedPodInfo{Pod: f.recreated, Key: key, Timestamp: q.clock.Now()})
	}
	return f, true
}

// AddUnschedulableIfNotPresent requeues a pod whose attempt failed (or
// whose binding failed), unless it was deleted meanwhile or the queue
// already holds it again. Where it goes:
//
//   - unschedulablePods, if qp.Unschedulable and nothing happened during
//     the attempt that could change the answer;
//   - backoffQ otherwise: for errors, for pods changed during the attempt,
//     and when a cluster event arrived while the pod was in flight.
func (q *SchedulingQueue) AddUnschedulableIfNotPresent(qp *QueuedPodInfo) {
	q.mu.Lock()
	defer q.mu.Unlock()
	f, wasInFlight := q.endAttemptLocked(qp.Key)
	if wasInFlight && (f.deleted || f.recreated != nil) {
		return // gone, or replaced by a new pod of the same name
	}
	if _, ok := q.unschedulablePods[qp.Key]; ok || q.find(qp.Key) != nil {
		return
	}
	qp.Timestamp = q.clock.Now()
	missedEvent := wasInFlight && (f.updated || q.moveRequestCycle >= f.cycle)
	if qp.Unschedulable && !missedEvent {
		q.unschedulablePods[qp.Key] = qp
		return
	}
	q.pushBackoff(qp)
}

// MoveAllToActiveOrBackoffQueue gives every unschedulable pod another
// chance after a cluster event that may have made room (event names it for
// the log). Pods whose back-off has not ended go to backoffQ, the rest to
// activeQ. It returns how many pods moved.
func (q *SchedulingQueue) MoveAllToActiveOrBackoffQueue(event string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	moved := len(q.unschedulablePods)
	for key, qp := range q.unschedulablePods {
		delete(q.unschedulablePods, key)
		q.moveToActiveOrBackoff(qp)
	}
	q.moveRequestCycle = q.schedulingCycle
	return moved
}

// Run flushes the queue until ctx ends: every second the pods whose
// back-off has ended move from backoffQ to activeQ, and every 30 s the pods
// that have waited in unschedulablePods longer than the limit move on
// (upstream's two flush loops, with the same periods). Then it closes the
// queue, which wakes Pop.
func (q *SchedulingQueue) Run(ctx context.Context) {
	defer q.Close()
	backoffTimer := q.clock.NewTimer(time.Second)
	defer backoffTimer.Stop()
	leftoverTimer := q.clock.NewTimer(30 * time.Second)
	defer leftoverTimer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-backoffTimer.C():
			q.FlushBackoffQCompleted()
			backoffTimer.Reset(time.Second)
		case <-leftoverTimer.C():
			q.FlushUnschedulablePodsLeftover()
			leftoverTimer.Reset(30 * time.Second)
		}
	}
}

// FlushBackoffQCompleted moves the pods whose back-off has ended to activeQ.
func (q *SchedulingQueue) FlushBackoffQCompleted() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	for q.backoffQ.Len() > 0 {
		qp := q.backoffQ.items[0]
		if q.backoffExpiry(qp).After(now) {
			return
		}
		heap.Pop(q.backoffQ)
		q.pushActive(qp)
	}
}

// FlushUnschedulablePodsLeftover moves on the pods that have waited in
// unschedulablePods longer than PodMaxInUnschedulablePodsDuration.
func (q *SchedulingQueue) FlushUnschedulablePodsLeftover() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	for key, qp := range q.unschedulablePods {
		if now.Sub(qp.Timestamp) > q.maxInUnschedulable {
			delete(q.unschedulablePods, key)
			q.moveToActiveOrBackoff(qp)
		}
	}
}

// Close wakes every Pop, which then reports the queue closed.
func (q *SchedulingQueue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
}

// PendingPods lists the keys in each waiting place (activeQ in the order
// Pop would hand them out; the others sorted), for tests and lessons.
func (q *SchedulingQueue) PendingPods() (active, backoff, unschedulable []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := append([]*QueuedPodInfo(nil), q.activeQ.items...)
	sort.Slice(items, func(i, j int) bool { return activeLess(items[i], items[j]) })
	for _, qp := range items {
		active = append(active, qp.Key)
	}
	for _, qp := range q.backoffQ.items {
		backoff = append(backoff, qp.Key)
	}
	sort.Strings(backoff)
	for key := range q.unschedulablePods {
		unschedulable = append(unschedulable, key)
	}
	sort.Strings(unschedulable)
	return active, backoff, unschedulable
}

// backoffDuration is initialBackoff doubled for every attempt after the
// first, capped at maxBackoff.
func (q *SchedulingQueue) backoffDuration(qp *QueuedPodInfo) time.Duration {
	d := q.initialBackoff
	for i := 1; i < qp.Attempts; i++ {
		d *= 2
		if d >= q.maxBackoff {
			return q.maxBackoff
		}
	}
	return min(d, q.maxBackoff)
}

// backoffExpiry is when qp's back-off ends.
func (q *SchedulingQueue) backoffExpiry(qp *QueuedPodInfo) time.Time {
	return qp.Timestamp.Add(q.backoffDuration(qp))
}

// moveToActiveOrBackoff sends a pod leaving unschedulablePods on: to
// backoffQ while its back-off lasts, else to activeQ. Caller holds mu.
func (q *SchedulingQueue) moveToActiveOrBackoff(qp *QueuedPodInfo) {
	if q.backoffExpiry(qp).After(q.clock.Now()) {
		q.pushBackoff(qp)
		return
	}
	q.pushActive(qp)
}

func (q *SchedulingQueue) pushActive(qp *QueuedPodInfo) {
	q.seq++
	qp.seq = q.seq
	heap.Push(q.activeQ, qp)
	q.cond.Signal()
}

func (q *SchedulingQueue) pushBackoff(qp *QueuedPodInfo) {
	heap.Push(q.backoffQ, qp)
}

// find returns the pod waiting in activeQ or backoffQ under key.
func (q *SchedulingQueue) find(key string) *QueuedPodInfo {
	if i := q.activeQ.indexOf(key); i >= 0 {
		return q.activeQ.items[i]
	}
	if i := q.backoffQ.indexOf(key); i >= 0 {
		return q.backoffQ.items[i]
	}
	return nil
}

// replacePod swaps in a newer pod object, keeping the heap in order (its
// priority may have changed).
func (q *SchedulingQueue) replacePod(qp *QueuedPodInfo, pod *api.Pod) {
	qp.Pod = pod
	if i := q.activeQ.indexOf(qp.Key); i >= 0 {
		heap.Fix(q.activeQ, i)
	}
	if i := q.backoffQ.indexOf(qp.Key); i >= 0 {
		heap.Fix(q.backoffQ, i)
	}
}

// isPodUpdated reports whether a pod changed in a way that could change
// where it fits: anything but its status and bookkeeping metadata.
func isPodUpdated(oldPod, newPod *api.Pod) bool {
	if oldPod == nil {
		return true
	}
	return !maps.Equal(oldPod.Labels, newPod.Labels) ||
		!maps.Equal(oldPod.Annotations, newPod.Annotations) ||
		!reflect.DeepEqual(oldPod.Spec, newPod.Spec)
}

// podHeap is a binary heap of queued pods with an index by key, so a pod
// can be found, updated or removed without a scan.
type podHeap struct {
	items []*QueuedPodInfo
	index map[string]*QueuedPodInfo
	less  func(a, b *QueuedPodInfo) bool
}

func (h *podHeap) Len() int           { return len(h.items) }
func (h *podHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *podHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].heapIndex = i
	h.items[j].heapIndex = j
}

// Push adds x (a *QueuedPodInfo); use heap.Push.
func (h *podHeap) Push(x any) {
	qp := x.(*QueuedPodInfo)
	if h.index == nil {
		h.index = map[string]*QueuedPodInfo{}
	}
	qp.heapIndex = len(h.items)
	h.items = append(h.items, qp)
	h.index[qp.Key] = qp
}

// Pop removes the last item; use heap.Pop.
func (h *podHeap) Pop() any {
	last := h.items[len(h.items)-1]
	h.items[len(h.items)-1] = nil
	h.items = h.items[:len(h.items)-1]
	delete(h.index, last.Key)
	last.heapIndex = -1
	return last
}

// indexOf returns key's position, or -1.
func (h *podHeap) indexOf(key string) int {
	if qp, ok := h.index[key]; ok {
		return qp.heapIndex
	}
	return -1
}
