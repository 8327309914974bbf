package apiserver

// This file is upstream's Priority admission plugin. A pod names a
// PriorityClass in spec.priorityClassName; the scheduler, however, orders
// its queue by the number in spec.priority (pkg/scheduler/queue.go). The
// plugin turns the one into the other when the pod is created:
//
//   - a pod naming a class gets the class's value in spec.priority and its
//     preemption policy in spec.preemptionPolicy; a class that does not
//     exist refuses the pod (403: no PriorityClass with name … was found);
//   - a pod naming none gets the global default class — its name too —
//     or, when no class is the default, priority 0 and PreemptLowerPriority;
//   - a pod that brings a priority or policy of its own is refused unless
//     it is the one the class gives (a manifest copied from a running pod
//     still applies).
//
// The number is fixed once the pod exists: pod updates cannot change it,
// and changing the class later changes no pod. On the PriorityClass side
// the plugin keeps the global default unique: a second class marked
// globalDefault is refused. Templates (a Deployment's, a Job's) are left
// alone: their pods are resolved one by one when they are created.
//
// Like upstream, which reads an informer's cache, the plugin reads the
// watch cache; a class the cache does not know yet (created a moment ago,
// or the system classes right after the first start) is read from etcd
// before the pod is refused.

import (
	"context"
	"errors"
	"fmt"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/store"
)

// admitPodPriority resolves a new pod's priority and preemption policy
// from its PriorityClass, or from the global default class.
func (s *Server) admitPodPriority(ctx context.Context, podRes *resource, pod *api.Pod) error {
	var class *api.PriorityClass
	if name := pod.Spec.PriorityClassName; name != "" {
		found, err := s.priorityClass(ctx, name)
		if apierrors.IsNotFound(err) {
			return apierrors.NewForbidden(podRes.qualified(), pod.Name, fmt.Errorf("no PriorityClass with name %s was found", name))
		}
		if err != nil {
			return fmt.Errorf("get PriorityClass %s for pod %s: %w", name, pod.Name, err)
		}
		class = found
	} else {
		// Every pod without a class name comes here: read the cache as it
		// is, without the etcd round trip of a consistent read.
		classes, err := s.priorityClasses(ctx, anyCachedRevision)
		if err != nil {
			return fmt.Errorf("list priority classes for the default of pod %s: %w", pod.Name, err)
		}
		class = globalDefaultPriorityClass(classes)
	}
	if err := resolvePodPriority(pod, class); err != nil {
		return apierrors.NewForbidden(podRes.qualified(), pod.Name, err)
	}
	return nil
}

// resolvePodPriority sets pod's priority and preemption policy from class
// (nil: no class named and no global default), and its class name when
// class is the default it did not name. It refuses values the pod brought
// that differ from the class's, with upstream's messages. A class without
// a preemption policy (stored before the field was defaulted) leaves the
// pod's as it is.
func resolvePodPriority(pod *api.Pod, class *api.PriorityClass) error {
	priority := api.DefaultPriorityWhenNoDefaultClassExists
	preemptLowerPriority := api.PreemptLowerPriority
	policy := &preemptLowerPriority
	if class != nil {
		priority, policy = class.Value, class.PreemptionPolicy
		pod.Spec.PriorityClassName = class.Name
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
		return fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name",
			*pod.Spec.Priority, priority)
	}
	pod.Spec.Priority = &priority
	if policy == nil {
		return nil
	}
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != *policy {
		return fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name",
			*pod.Spec.PreemptionPolicy, *policy)
	}
	resolved := *policy // a copy: class is the cache's, shared
	pod.Spec.PreemptionPolicy = &resolved
	return nil
}

// keepPodPriority carries a pod's priority and preemption policy over from
// the stored pod when an update leaves them out (a `kubectl replace` of the
// original manifest), as upstream's plugin does on update. Whatever else
// the update does to them, pod validation refuses.
func keepPodPriority(pod, old *api.Pod) {
	// Copies, not old's pointers: old may be the watch cache's object.
	if pod.Spec.Priority == nil && old.Spec.Priority != nil {
		priority := *old.Spec.Priority
		pod.Spec.Priority = &priority
	}
	if pod.Spec.PreemptionPolicy == nil && old.Spec.PreemptionPolicy != nil {
		policy := *old.Spec.PreemptionPolicy
		pod.Spec.PreemptionPolicy = &policy
	}
}

// admitPriorityClass keeps the global default unique, as upstream's
// plugin validates PriorityClass writes: a class created as the default,
// or marked the default by an update, is refused while another class is
// the default. A class that already is the default may be updated.
func (s *Server) admitPriorityClass(ctx context.Context, res *resource, class *api.PriorityClass, old api.Object) error {
	if !class.GlobalDefault {
		return nil
	}
	// Class writes are rare: a consistent read narrows the window in
	// which two classes made the default at once both get through.
	classes, err := s.priorityClasses(ctx, consistentRevision)
	if err != nil {
		return fmt.Errorf("list priority classes for the default: %w", err)
	}
	current := globalDefaultPriorityClass(classes)
	if current == nil || (old != nil && current.Name == class.Name) {
		return nil
	}
	return apierrors.NewForbidden(res.qualified(), class.Name,
		fmt.Errorf("PriorityClass %s is already marked as default. Only one default can exist", current.Name))
}

// globalDefaultPriorityClass picks the class pods without a class name
// get: of the classes marked globalDefault, the one with the lowest value
// (upstream's choice when a race left several), and of equal values the
// first by name. Nil when none is marked.
func globalDefaultPriorityClass(classes []*api.PriorityClass) *api.PriorityClass {
	var chosen *api.PriorityClass
	for _, c := range classes {
		if !c.GlobalDefault {
			continue
		}
		if chosen == nil || c.Value < chosen.Value || (c.Value == chosen.Value && c.Name < chosen.Name) {
			chosen = c
		}
	}
	return chosen
}

// priorityClass reads one class from the watch cache or, when the cache
// does not have it, from etcd. A class in neither is a NotFound error.
func (s *Server) priorityClass(ctx context.Context, name string) (*api.PriorityClass, error) {
	res := s.reg.byPluralAny["priorityclasses"]
	key := res.key("", name)
	if e, ok := s.caches[res].Get(key); ok {
		return e.Object.(*storedObject).obj.(*api.PriorityClass), nil
	}
	kv, err := s.store.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierrors.NewNotFound(res.qualified(), name)
	}
	if err != nil {
		return nil, storeError(err, res, name)
	}
	so, err := s.decodeStored(res, kv)
	if err != nil {
		return nil, err
	}
	return so.obj.(*api.PriorityClass), nil
}

// The minimum revisions priorityClasses reads the watch cache at.
const (
	// consistentRevision waits for the cache to catch up with etcd's
	// current revision, which costs a round trip to etcd.
	consistentRevision int64 = 0
	// anyCachedRevision takes the cache as it is.
	anyCachedRevision int64 = 1
)

// priorityClasses lists every class in the watch cache, at a revision of
// at least minRevision.
func (s *Server) priorityClasses(ctx context.Context, minRevision int64) ([]*api.PriorityClass, error) {
	res := s.reg.byPluralAny["priorityclasses"]
	entries, _, err := s.caches[res].List(ctx, res.keyPrefix(""), minRevision)
	if err != nil {
		return nil, storeError(err, res, "")
	}
	classes := make([]*api.PriorityClass, 0, len(entries))
	for _, e := range entries {
		classes = append(classes, e.Object.(*storedObject).obj.(*api.PriorityClass))
	}
	return classes, nil
}
