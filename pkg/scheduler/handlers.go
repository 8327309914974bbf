package scheduler

// This file wires the informers to the queue and the cache. The pod
// informer feeds two handlers, split by a filter exactly as upstream's
// addAllEventHandlers splits them:
//
//	pod with spec.nodeName ─────────────────────────▶ cache (what nodes hold)
//	pod without spec.nodeName, our schedulerName ───▶ queue (what to place)
//
// A pod that gets bound crosses the filter: the queue's handler sees it
// deleted and the cache's handler sees it added, which confirms the
// scheduler's assumption. Node events update the cache and, when they
// could let a waiting pod fit, move the unschedulable pods back to the
// active queue; so does an assigned pod's deletion, which frees resources.
// Claims and volumes are not cached here (VolumeBinding reads their
// informers' listers); their events only move unschedulable pods, since a
// claim created or bound, or a volume added or changed, may be what a pod
// waits for:
//
//	PersistentVolumeClaim added or updated ──┐
//	PersistentVolume added or updated ───────┴──▶ unschedulable pods → queue

import (
	"maps"
	"reflect"

	"kplane/pkg/api"
	"kplane/pkg/informer"
	"kplane/pkg/scheduler/framework"
)

// Names of the cluster events that move unschedulable pods, as upstream
// labels them in its logs and metrics.
const (
	eventNodeAdd           = "NodeAdd"
	eventNodeUpdate        = "NodeUpdate"
	eventAssignedPodDelete = "AssignedPodDelete"
	eventClaimAdd          = "PersistentVolumeClaimAdd"
	eventClaimUpdate       = "PersistentVolumeClaimUpdate"
	eventVolumeAdd         = "PersistentVolumeAdd"
	eventVolumeUpdate      = "PersistentVolumeUpdate"
	eventStorageClassAdd   = "StorageClassAdd"
)

// addEventHandlers registers the scheduler's handlers and returns their
// registrations, whose HasSynced says the initial lists were handled.
func (s *Scheduler) addEventHandlers(pods, nodes, claims, volumes, classes informer.SharedIndexInformer) ([]informer.ResourceEventHandlerRegistration, error) {
	var regs []informer.ResourceEventHandlerRegistration
	for _, h := range []struct {
		inf     informer.SharedIndexInformer
		handler informer.ResourceEventHandler
	}{
		{pods, informer.FilteringResourceEventHandler{
			FilterFunc: func(obj any) bool {
				pod := podOf(obj)
				return pod != nil && pod.Spec.NodeName != ""
			},
			Handler: informer.ResourceEventHandlerFuncs{
				AddFunc:    s.addPodToCache,
				UpdateFunc: s.updatePodInCache,
				DeleteFunc: s.deletePodFromCache,
			},
		}},
		{pods, informer.FilteringResourceEventHandler{
			FilterFunc: func(obj any) bool {
				pod := podOf(obj)
				return pod != nil && pod.Spec.NodeName == "" && s.responsibleForPod(pod)
			},
			Handler: informer.ResourceEventHandlerFuncs{
				AddFunc:    s.addPodToQueue,
				UpdateFunc: s.updatePodInQueue,
				DeleteFunc: s.deletePodFromQueue,
			},
		}},
		{nodes, informer.ResourceEventHandlerFuncs{
			AddFunc:    s.addNode,
			UpdateFunc: s.updateNode,
			DeleteFunc: s.deleteNode,
		}},
		// Upstream's VolumeBinding registers for claim and volume Add and
		// Update; a deletion never makes a pod fit, so it is ignored.
		{claims, informer.ResourceEventHandlerFuncs{
			AddFunc:    func(api.Object) { s.moveAllToActiveOrBackoff(eventClaimAdd) },
			UpdateFunc: func(_, _ api.Object) { s.moveAllToActiveOrBackoff(eventClaimUpdate) },
		}},
		{volumes, informer.ResourceEventHandlerFuncs{
			AddFunc:    func(api.Object) { s.moveAllToActiveOrBackoff(eventVolumeAdd) },
			UpdateFunc: func(_, _ api.Object) { s.moveAllToActiveOrBackoff(eventVolumeUpdate) },
		}},
		// A new WaitForFirstConsumer class turns its unbound claims from
		// "unbound immediate" into delayed ones, which no longer block
		// their pods (upstream registers StorageClass Add too).
		{classes, informer.ResourceEventHandlerFuncs{
			AddFunc: func(api.Object) { s.moveAllToActiveOrBackoff(eventStorageClassAdd) },
		}},
	} {
		reg, err := h.inf.AddEventHandler(h.handler)
		if err != nil {
			return nil, err
		}
		regs = append(regs, reg)
	}
	return regs, nil
}

// responsibleForPod reports whether pod asks for this scheduler. The
// apiserver fills in "default-scheduler" for pods that name none.
func (s *Scheduler) responsibleForPod(pod *api.Pod) bool {
	name := pod.Spec.SchedulerName
	if name == "" {
		name = api.DefaultSchedulerName
	}
	return name == s.opts.SchedulerName
}

func (s *Scheduler) addPodToCache(obj api.Object) {
	s.cache.AddPod(obj.(*api.Pod))
}

func (s *Scheduler) updatePodInCache(_, newObj api.Object) {
	s.cache.UpdatePod(newObj.(*api.Pod))
}

func (s *Scheduler) deletePodFromCache(obj any) {
	pod := podOf(obj)
	if pod == nil {
		return
	}
	s.cache.RemovePod(pod)
	s.moveAllToActiveOrBackoff(eventAssignedPodDelete)
}

func (s *Scheduler) addPodToQueue(obj api.Object) {
	pod := obj.(*api.Pod)
	if len(pod.Spec.SchedulingGates) > 0 || s.cache.IsAssumed(pod) {
		return
	}
	s.queue.Add(pod)
}

func (s *Scheduler) updatePodInQueue(oldObj, newObj api.Object) {
	oldPod, newPod := oldObj.(*api.Pod), newObj.(*api.Pod)
	// An assumed pod is being bound; its updates (our own status write,
	// say) must not put it back in the queue.
	if s.cache.IsAssumed(newPod) {
		return
	}
	// Upstream keeps gated pods in a queue of their own; kplane simply
	// leaves them out until the last gate is removed.
	if len(newPod.Spec.SchedulingGates) > 0 {
		s.queue.Delete(newPod)
		return
	}
	s.queue.Update(oldPod, newPod)
}

func (s *Scheduler) deletePodFromQueue(obj any) {
	pod := podOf(obj)
	if pod == nil {
		return
	}
	s.queue.Delete(pod)
	// A deletion found by a relist may hide a binding the informer never
	// showed us; drop any assumption so its resources are not held forever.
	if _, isPod := obj.(*api.Pod); !isPod {
		s.cache.ForgetPod(framework.PodUID(pod))
	}
}

func (s *Scheduler) addNode(obj api.Object) {
	s.cache.AddNode(obj.(*api.Node))
	s.moveAllToActiveOrBackoff(eventNodeAdd)
}

func (s *Scheduler) updateNode(oldObj, newObj api.Object) {
	oldNode, newNode := oldObj.(*api.Node), newObj.(*api.Node)
	s.cache.UpdateNode(newNode)
	if nodeSchedulingPropertiesChanged(oldNode, newNode) {
		s.moveAllToActiveOrBackoff(eventNodeUpdate)
	}
}

func (s *Scheduler) deleteNode(obj any) {
	switch o := obj.(type) {
	case *api.Node:
		s.cache.RemoveNode(o.Name)
	case informer.DeletedFinalStateUnknown:
		s.cache.RemoveNode(o.Key)
	case *informer.DeletedFinalStateUnknown:
		s.cache.RemoveNode(o.Key)
	}
}

// moveAllToActiveOrBackoff moves the unschedulable pods after event.
func (s *Scheduler) moveAllToActiveOrBackoff(event string) {
	if moved := s.queue.MoveAllToActiveOrBackoffQueue(event); moved > 0 && s.v(2) {
		s.log.Info("cluster event moved unschedulable pods back to the queue", "event", event, "pods", moved)
	}
}

// nodeSchedulingPropertiesChanged reports whether a node update could
// let a pod fit that did not before: its allocatable, labels, taints,
// spec.unschedulable or condition statuses changed. The kubelet's
// heartbeat, which rewrites condition timestamps every 10 s, is not such a
// change — reacting to it would retry every unschedulable pod every few
// seconds.
func nodeSchedulingPropertiesChanged(oldNode, newNode *api.Node) bool {
	if oldNode.Spec.Unschedulable != newNode.Spec.Unschedulable ||
		!maps.Equal(oldNode.Labels, newNode.Labels) ||
		!reflect.DeepEqual(oldNode.Spec.Taints, newNode.Spec.Taints) ||
		!reflect.DeepEqual(oldNode.Status.Allocatable, newNode.Status.Allocatable) {
		return true
	}
	conditionStatuses := func(n *api.Node) map[api.NodeConditionType]api.ConditionStatus {
		m := make(map[api.NodeConditionType]api.ConditionStatus, len(n.Status.Conditions))
		for _, c := range n.Status.Conditions {
			m[c.Type] = c.Status
		}
		return m
	}
	return !maps.Equal(conditionStatuses(oldNode), conditionStatuses(newNode))
}

// podOf returns the pod in a handler's argument: a pod, or the last known
// state inside a tombstone (nil if there is none).
func podOf(obj any) *api.Pod {
	pod, _ := informer.DeletedObject[*api.Pod](obj)
	return pod
}
