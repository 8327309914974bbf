package job

// This file holds the informer event handlers. They only work out which
// Job a change concerns, enqueue its key, and keep the expectations up to
// date ("one of the pods I created has arrived"); the work happens in
// sync.

import (
	"fmt"
	"maps"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

func (c *Controller) addJob(obj api.Object) {
	if job, ok := obj.(*api.Job); ok {
		c.queue.Add(keyOf(job))
	}
}

// updateJob enqueues the Job on every change: a status write echoing back
// costs one cheap sync, and a spec change (suspend, parallelism, the
// deadline) needs one.
func (c *Controller) updateJob(oldObj, newObj api.Object) {
	oldJob, ok1 := oldObj.(*api.Job)
	newJob, ok2 := newObj.(*api.Job)
	if !ok1 || !ok2 {
		return
	}
	if oldJob.UID != newJob.UID {
		// Deleted and re-created under the same name between two events.
		c.expectations.Delete(keyOf(oldJob))
		c.removals.forget(keyOf(oldJob))
		c.enqueueDeletedJobPods(oldJob)
	}
	c.queue.Add(keyOf(newJob))
}

// deleteJob forgets the Job's expectations, so a new Job of that name
// starts clean, and hands the pods it still tracks to the orphan queue:
// with the Job gone, nobody else would remove their finalizer.
func (c *Controller) deleteJob(obj any) {
	job, ok := informer.DeletedObject[*api.Job](obj)
	if !ok {
		c.log.Warn("job delete event without a Job", "object", fmt.Sprintf("%T", obj))
		return
	}
	key := keyOf(job)
	c.expectations.Delete(key)
	c.removals.forget(key)
	c.enqueueDeletedJobPods(job)
	c.queue.Add(key)
}

// addPod lowers the creations its Job waits for, or, for an orphan, wakes
// every Job that might adopt it. A pod with the tracking finalizer and no
// Job goes to the orphan queue.
func (c *Controller) addPod(obj api.Object) {
	pod, ok := obj.(*api.Pod)
	if !ok {
		return
	}
	if pod.DeletionTimestamp != nil {
		c.podDeleted(pod, false)
		return
	}
	if ref := controllerutil.GetControllerOf(&pod.ObjectMeta); ref != nil {
		job := c.resolveControllerRef(pod.Namespace, ref)
		if job == nil {
			c.enqueueOrphanPod(pod)
			return
		}
		key := keyOf(job)
		c.expectations.CreationObserved(key)
		c.queue.Add(key)
		return
	}
	c.enqueueOrphanPod(pod)
	for _, job := range c.jobsSelecting(pod) {
		c.queue.Add(keyOf(job))
	}
}

// updatePod wakes the Job of a pod that changed: it became ready, finished
// (a success to count, a failure that starts a back-off), lost its
// tracking finalizer, or started terminating.
func (c *Controller) updatePod(oldObj, newObj api.Object) {
	oldPod, ok1 := oldObj.(*api.Pod)
	curPod, ok2 := newObj.(*api.Pod)
	if !ok1 || !ok2 || oldPod.ResourceVersion == curPod.ResourceVersion {
		return
	}
	if curPod.DeletionTimestamp != nil {
		// Count the deletion now, when it starts, not when the pod leaves.
		c.podDeleted(curPod, false)
		return
	}
	curRef := controllerutil.GetControllerOf(&curPod.ObjectMeta)
	oldRef := controllerutil.GetControllerOf(&oldPod.ObjectMeta)
	if oldRef != nil && (curRef == nil || oldRef.UID != curRef.UID) {
		if job := c.resolveControllerRef(oldPod.Namespace, oldRef); job != nil {
			c.observeFinalizer(keyOf(job), curPod)
			c.queue.Add(keyOf(job))
		}
	}
	if curRef != nil {
		job := c.resolveControllerRef(curPod.Namespace, curRef)
		if job == nil {
			c.enqueueOrphanPod(curPod)
			return
		}
		c.observeFinalizer(keyOf(job), curPod)
		c.queue.Add(keyOf(job))
		return
	}
	c.enqueueOrphanPod(curPod)
	if !maps.Equal(oldPod.Labels, curPod.Labels) || oldRef != nil {
		for _, job := range c.jobsSelecting(curPod) {
			c.queue.Add(keyOf(job))
		}
	}
}

// deletePod handles a pod's final deletion.
func (c *Controller) deletePod(obj any) {
	pod, ok := informer.DeletedObject[*api.Pod](obj)
	if !ok {
		c.log.Warn("pod delete event without a Pod", "object", fmt.Sprintf("%T", obj))
		return
	}
	c.podDeleted(pod, true)
}

// podDeleted marks the pod's deletion as seen for its Job and enqueues the
// Job. final says the pod is gone from the apiserver, not just marked with
// a deletionTimestamp (then its finalizer is gone too, though the last
// state the event carries may still show it). A pod being deleted with the
// finalizer and no Job goes to the orphan queue, or it would never go.
func (c *Controller) podDeleted(pod *api.Pod, final bool) {
	ref := controllerutil.GetControllerOf(&pod.ObjectMeta)
	var job *api.Job
	if ref != nil {
		job = c.resolveControllerRef(pod.Namespace, ref)
	}
	if job == nil {
		if !final {
			c.enqueueOrphanPod(pod)
		}
		return
	}
	key := keyOf(job)
	c.expectations.DeletionObserved(key, keyOf(pod))
	if final {
		c.removals.observed(key, pod.UID)
	} else {
		c.observeFinalizer(key, pod)
	}
	c.queue.Add(key)
}

// observeFinalizer clears the Job's pending finalizer removal for the pod
// once the cache shows the pod without the finalizer.
func (c *Controller) observeFinalizer(jobKey string, pod *api.Pod) {
	if !hasTrackingFinalizer(pod) {
		c.removals.observed(jobKey, pod.UID)
	}
}

// resolveControllerRef returns the Job a controllerRef points to, if the
// cached Job of that name has the same UID; nil otherwise.
func (c *Controller) resolveControllerRef(namespace string, ref *api.OwnerReference) *api.Job {
	if ref.Kind != "Job" {
		return nil
	}
	job, err := c.jobs.Namespace(namespace).Get(ref.Name)
	if err != nil || job.UID != ref.UID {
		return nil
	}
	return job
}

// jobsSelecting returns the Jobs in the pod's namespace whose selector
// matches it: the candidates to adopt an orphan.
func (c *Controller) jobsSelecting(pod *api.Pod) []*api.Job {
	jobs, err := c.jobs.Namespace(pod.Namespace).List(nil)
	if err != nil {
		return nil
	}
	var matching []*api.Job
	for _, job := range jobs {
		selector, err := jobSelector(job)
		if err != nil || selector.Empty() || !selector.Matches(pod.Labels) {
			continue
		}
		matching = append(matching, job)
	}
	return matching
}

// keyOf returns obj's "namespace/name" key.
func keyOf(obj api.Object) string {
	key, _ := informer.MetaNamespaceKeyFunc(obj)
	return key
}
