package kubelet

// This file is the status manager: the one writer of pod statuses for every
// node of the process. Pod workers hand it the status a pod should have
// whenever anything changes; it writes them to the API a moment later, as
// upstream's status_manager.go does, with three savings that matter when a
// thousand pods start at once:
//
//   - Batching: a pod's status waits StatusBatchDelay before it is written,
//     and every change made meanwhile is folded into the same write, so
//     ContainerCreating → Running → Ready is usually one PUT.
//   - Skipping: a status equal to what the API already has is not written.
//   - One queue: the statuses of all pods of all nodes go through one
//     deduplicating workqueue served by statusWorkers writers.
//
// It also finishes a deletion: once the final status of a deleted pod is
// written, it deletes the object with gracePeriodSeconds=0 and a UID
// precondition, which is the kubelet's confirmation that the containers are
// gone. A static pod's status goes to its mirror pod.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/clock"
	"kplane/pkg/informer"
	"kplane/pkg/informer/workqueue"
)

// statusWorkers is how many status writes run at once: enough to keep up
// when many pods start together, few enough not to swamp the apiserver.
// Upstream's kubelet writes one node's statuses from one goroutine, so 100
// nodes write 100 at a time; kplane's hollow nodes share this queue. With
// 16, W6's pods (1 000 on 100 hollow nodes) waited a median 1.3-2.5 s
// from their binding to their Running status, most of it in this queue
// (each write takes 30-100 ms while the apiserver also creates and binds
// pods); with 64 it is 0.3-0.4 s, and 100 measured no better.
const statusWorkers = 64

// statusManager writes pod statuses; it implements statusSink.
type statusManager struct {
	client     *client.Client
	pods       *informer.Lister[*api.Pod]
	queue      *workqueue.Queue[string]
	batchDelay time.Duration
	// clock times the batching (through the queue) and stamps conditions'
	// lastTransitionTime.
	clock clock.Clock
	log   *slog.Logger

	mu sync.Mutex
	// entries holds, by pod UID, the latest status each pod should have.
	entries map[string]*statusEntry
}

// statusEntry is what the status manager knows about one pod.
type statusEntry struct {
	// pod is the pod the status is for (for a static pod, the pod from its
	// manifest, whose status goes to the mirror pod).
	pod    *api.Pod
	status api.PodStatus
	// terminate asks for the object to be deleted once status is written.
	terminate bool
	// lastWritten is the status last written to the object with UID
	// writtenTo, at resourceVersion writtenRV, to skip repeats while the
	// informer's copy of the pod catches up.
	lastWritten *api.PodStatus
	writtenTo   string
	writtenRV   string
}

func newStatusManager(c *client.Client, pods *informer.Lister[*api.Pod], batchDelay time.Duration, clk clock.Clock, log *slog.Logger) *statusManager {
	return &statusManager{client: c, pods: pods, batchDelay: batchDelay, clock: clk, log: log,
		queue:   workqueue.New(workqueue.Options[string]{Name: "pod-status", Clock: clk}),
		entries: map[string]*statusEntry{}}
}

// SetPodStatus records the status pod should have and schedules a write.
func (m *statusManager) SetPodStatus(pod *api.Pod, status api.PodStatus) {
	m.set(pod, status, false)
}

// TerminatePod records a deleted pod's final status; the object is deleted
// once it is written.
func (m *statusManager) TerminatePod(pod *api.Pod, status api.PodStatus) {
	m.set(pod, status, true)
}

func (m *statusManager) set(pod *api.Pod, status api.PodStatus, terminate bool) {
	m.mu.Lock()
	e, ok := m.entries[pod.UID]
	if !ok {
		e = &statusEntry{}
		m.entries[pod.UID] = e
	}
	e.pod, e.status = pod, status
	e.terminate = e.terminate || terminate
	m.mu.Unlock()
	// AddAfter keeps the earlier time when the pod is already waiting, so a
	// burst of changes is written once, batchDelay after the first.
	m.queue.AddAfter(pod.UID, m.batchDelay)
}

// Forget drops a pod that is gone.
func (m *statusManager) Forget(uid string) {
	m.mu.Lock()
	delete(m.entries, uid)
	m.mu.Unlock()
}

// Resync schedules another write attempt for a pod (a static pod whose
// mirror pod has just been created).
func (m *statusManager) Resync(uid string) { m.queue.Add(uid) }

// run serves the queue with statusWorkers workers until ctx ends.
func (m *statusManager) run(ctx context.Context) {
	var wg sync.WaitGroup
	for range statusWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m.processNext(ctx) {
			}
		}()
	}
	<-ctx.Done()
	m.queue.ShutDown()
	wg.Wait()
}

func (m *statusManager) processNext(ctx context.Context) bool {
	uid, shutdown := m.queue.Get()
	if shutdown {
		return false
	}
	defer m.queue.Done(uid)
	if err := m.sync(ctx, uid); err != nil {
		if ctx.Err() == nil {
			m.log.Warn("could not write pod status, will retry", "podUID", uid, "err", err)
			m.queue.AddRateLimited(uid)
		}
		return true
	}
	m.queue.Forget(uid)
	return true
}

// sync writes one pod's status if it differs from the API's, then deletes
// the pod if its termination is complete.
func (m *statusManager) sync(ctx context.Context, uid string) error {
	m.mu.Lock()
	e, ok := m.entries[uid]
	if !ok {
		m.mu.Unlock()
		return nil
	}
	pod, desired, terminate, lastWritten, writtenTo, writtenRV := e.pod, e.status, e.terminate, e.lastWritten, e.writtenTo, e.writtenRV
	m.mu.Unlock()

	static := isStaticPod(pod)
	target, err := m.target(pod)
	if err != nil || target == nil {
		return err
	}
	now := m.clock.Now()
	// Nothing new since our last write to this object: the informer's copy
	// has simply not caught up with that write yet, so writing against it
	// would only earn a conflict. Unless the copy is newer than our write:
	// then someone else wrote the pod since (the node lifecycle controller
	// marks the pods of a silent node not ready), and the status is
	// compared with theirs, as upstream's status manager compares with the
	// API's.
	nothingNew := lastWritten != nil && writtenTo == target.UID && !resourceVersionAfter(target.ResourceVersion, writtenRV) &&
		equalStatus(mergeStatus(*lastWritten, desired, now), *lastWritten)
	if !nothingNew {
		written, rv, err := m.write(ctx, pod, target, desired, now)
		if err != nil {
			return err
		}
		if written == nil {
			return nil // the pod is gone
		}
		m.mu.Lock()
		if e, ok := m.entries[uid]; ok {
			e.lastWritten, e.writtenTo, e.writtenRV = written, target.UID, rv
		}
		m.mu.Unlock()
	}

	if terminate && !static {
		zero := int64(0)
		err := m.client.Pods(pod.Namespace).Delete(ctx, pod.Name, client.DeleteOptions{
			GracePeriodSeconds: &zero, Preconditions: &api.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("delete terminated pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
		m.log.Debug("deleted terminated pod", "pod", pod.Namespace+"/"+pod.Name)
		m.Forget(uid)
	}
	return nil
}

// write merges desired into target's status and writes it unless nothing
// changes, retrying conflicts against a fresh read. It returns the status
// the API now holds and its resourceVersion, or nil when the pod is gone.
func (m *statusManager) write(ctx context.Context, pod, target *api.Pod, desired api.PodStatus, now time.Time) (*api.PodStatus, string, error) {
	pods := m.client.Pods(target.Namespace)
	for attempt := 0; ; attempt++ {
		merged := mergeStatus(target.Status, desired, now)
		if equalStatus(merged, target.Status) {
			return &merged, target.ResourceVersion, nil
		}
		update := api.DeepCopy(target)
		update.Status = merged
		updated, err := pods.UpdateStatus(ctx, update, client.UpdateOptions{})
		switch {
		case err == nil:
			return &merged, updated.ResourceVersion, nil
		case apierrors.IsNotFound(err):
			return nil, "", nil
		case !apierrors.IsConflict(err) || attempt >= 3:
			return nil, "", fmt.Errorf("update status of pod %s/%s: %w", target.Namespace, target.Name, err)
		}
		fresh, err := pods.Get(ctx, target.Name, client.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, "", nil
		}
		if err != nil {
			return nil, "", fmt.Errorf("read pod %s/%s after a conflict: %w", target.Namespace, target.Name, err)
		}
		if !m.isTarget(pod, fresh) {
			return nil, "", nil
		}
		target = fresh
	}
}

// resourceVersionAfter reports whether resourceVersion a is later than b.
// kplane's resourceVersions are etcd revisions, which only grow; an empty
// or unreadable one counts as later, so that the status is compared with
// the API's rather than skipped.
func resourceVersionAfter(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA != nil || errB != nil || x > y
}

// target is the API object pod's status is written to: the pod itself (if
// the informer still has it with the same UID), or a static pod's mirror
// pod. nil means there is none (yet).
func (m *statusManager) target(pod *api.Pod) (*api.Pod, error) {
	cached, err := m.pods.Namespace(pod.Namespace).Get(pod.Name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if !m.isTarget(pod, cached) {
		return nil, nil
	}
	return cached, nil
}

// isTarget reports whether obj is where pod's status belongs.
func (m *statusManager) isTarget(pod, obj *api.Pod) bool {
	if isStaticPod(pod) {
		return isMirrorPodOf(obj, pod) && obj.DeletionTimestamp == nil
	}
	return obj.UID == pod.UID
}

// mergeStatus is desired as it should be stored over current: the
// conditions the kubelet does not own and the fields others write
// (nominatedNodeName, qosClass, a reason set by an eviction) are kept from
// current, and a condition whose status did not change keeps its
// lastTransitionTime.
func mergeStatus(current, desired api.PodStatus, now time.Time) api.PodStatus {
	out := desired
	out.Conditions = nil
	for _, c := range current.Conditions {
		if !isKubeletCondition(c.Type) {
			out.Conditions = append(out.Conditions, c)
		}
	}
	for _, c := range desired.Conditions {
		c.LastTransitionTime = api.NewTime(now.UTC().Truncate(time.Second))
		for _, old := range current.Conditions {
			if old.Type == c.Type && old.Status == c.Status {
				c.LastTransitionTime, c.LastProbeTime = old.LastTransitionTime, old.LastProbeTime
			}
		}
		out.Conditions = append(out.Conditions, c)
	}
	out.NominatedNodeName = current.NominatedNodeName
	out.Resize, out.ResourceClaimStatuses = current.Resize, current.ResourceClaimStatuses
	out.EphemeralContainerStatuses = current.EphemeralContainerStatuses
	if out.QOSClass == "" {
		out.QOSClass = current.QOSClass
	}
	if out.Reason == "" {
		out.Reason, out.Message = current.Reason, current.Message
	}
	if out.StartTime == nil {
		out.StartTime = current.StartTime
	}
	return out
}

// equalStatus compares two statuses as the API stores them (JSON, with
// timestamps to the second), so a status that only differs below a second
// counts as unchanged.
func equalStatus(a, b api.PodStatus) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
