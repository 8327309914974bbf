package cronjob

// This file holds the informer event handlers. They only work out which
// CronJob a change concerns and enqueue its key; the work happens in sync.

import (
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/informer"
)

func (c *Controller) addCronJob(obj api.Object) { c.queue.Add(keyOf(obj)) }

// updateCronJob enqueues the CronJob on every change: a new schedule,
// suspend or concurrencyPolicy needs a sync, and the echo of a status
// write costs one cheap sync.
func (c *Controller) updateCronJob(_, newObj api.Object) { c.queue.Add(keyOf(newObj)) }

// deleteCronJob enqueues a deleted CronJob's key; its sync finds it gone
// and does nothing (its Jobs go through the garbage collector). obj may be
// a tombstone: only the key is needed, and MetaNamespaceKeyFunc reads the
// one it carries, even when it lost the CronJob's last state (upstream's
// DeletionHandlingMetaNamespaceKeyFunc).
func (c *Controller) deleteCronJob(obj any) {
	key, err := informer.MetaNamespaceKeyFunc(obj)
	if err != nil {
		c.log.Warn("cronjob delete event without a key", "object", fmt.Sprintf("%T", obj), "err", err)
		return
	}
	c.queue.Add(key)
}

func (c *Controller) addJob(obj api.Object) { c.jobChanged(obj) }

func (c *Controller) updateJob(_, newObj api.Object) { c.jobChanged(newObj) }

func (c *Controller) deleteJob(obj any) {
	job, ok := informer.DeletedObject[*api.Job](obj)
	if !ok {
		c.log.Warn("job delete event without a Job", "object", fmt.Sprintf("%T", obj))
		return
	}
	c.jobChanged(job)
}

// jobChanged enqueues the CronJob that controls a Job that was created,
// changed (it finished) or deleted.
func (c *Controller) jobChanged(obj api.Object) {
	job, ok := obj.(*api.Job)
	if !ok {
		return
	}
	ref := controllerutil.GetControllerOf(&job.ObjectMeta)
	if ref == nil || ref.Kind != "CronJob" {
		return
	}
	cj, err := c.cronJobs.Namespace(job.Namespace).Get(ref.Name)
	if err != nil || cj.UID != ref.UID {
		return
	}
	c.queue.Add(keyOf(cj))
}

// keyOf returns obj's "namespace/name" key.
func keyOf(obj api.Object) string {
	key, _ := informer.MetaNamespaceKeyFunc(obj)
	return key
}
