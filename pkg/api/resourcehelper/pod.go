// Package resourcehelper adds up what a pod asks for: the requests and
// limits of its containers, init containers and sidecars, the way
// LimitRange admission counts them for a LimitRange item of type Pod.
//
// A pod's containers run side by side, so their amounts add up. Its init
// containers run one after another before them, so only the largest counts
// — but a sidecar (an init container with restartPolicy Always) keeps
// running once started, so it adds to the main containers and to every
// init container that starts after it. The pod needs the larger of the two
// sums. spec.overhead (the runtime's own cost) comes on top, and pod-level
// spec.resources, where set, replaces the containers' sum.
//
// It mirrors upstream's k8s.io/component-helpers/resource/helpers.go
// (PodRequests, PodLimits and their options).
package resourcehelper

import "kplane/pkg/api"

// Options says what PodRequests and PodLimits count beyond the containers.
type Options struct {
	// ExcludeOverhead leaves spec.overhead out. LimitRange admission does:
	// a LimitRange bounds what the user wrote, not what the runtime adds.
	ExcludeOverhead bool
	// SkipPodLevelResources ignores pod-level spec.resources and counts the
	// containers only.
	SkipPodLevelResources bool
}

// PodRequests returns the requests of the whole pod: the containers' sum,
// or an init container's need when larger, plus the overhead, with
// pod-level requests (cpu, memory) taking the place of the sum.
func PodRequests(pod *api.Pod, opts Options) api.ResourceList {
	requests := aggregate(pod, func(r api.ResourceRequirements) api.ResourceList { return r.Requests })
	if !opts.SkipPodLevelResources && pod.Spec.Resources != nil {
		overridePodLevel(requests, pod.Spec.Resources.Requests)
	}
	if !opts.ExcludeOverhead {
		for name, q := range pod.Spec.Overhead {
			Add(requests, name, q)
		}
	}
	return requests
}

// PodLimits is PodRequests for limits. The overhead is added only to a
// resource that has a limit: an unlimited resource stays unlimited.
func PodLimits(pod *api.Pod, opts Options) api.ResourceList {
	limits := aggregate(pod, func(r api.ResourceRequirements) api.ResourceList { return r.Limits })
	if !opts.SkipPodLevelResources && pod.Spec.Resources != nil {
		overridePodLevel(limits, pod.Spec.Resources.Limits)
	}
	if !opts.ExcludeOverhead {
		for name, q := range pod.Spec.Overhead {
			if _, limited := limits[name]; limited {
				Add(limits, name, q)
			}
		}
	}
	return limits
}

// aggregate sums one side (requests or limits) of the containers and takes
// the larger of that and what the init containers need.
func aggregate(pod *api.Pod, pick func(api.ResourceRequirements) api.ResourceList) api.ResourceList {
	total := api.ResourceList{}
	for _, c := range pod.Spec.Containers {
		for name, q := range pick(c.Resources) {
			Add(total, name, q)
		}
	}
	sidecars := api.ResourceList{} // the sidecars started so far
	initNeed := api.ResourceList{} // the most any init container step needs
	for _, c := range pod.Spec.InitContainers {
		own := pick(c.Resources)
		step := api.ResourceList{}
		if c.RestartPolicy != nil && *c.RestartPolicy == api.ContainerRestartPolicyAlways {
			// A sidecar keeps running beside the main containers.
			for name, q := range own {
				Add(total, name, q)
				Add(sidecars, name, q)
			}
			for name, q := range sidecars {
				Add(step, name, q)
			}
		} else {
			for name, q := range own {
				Add(step, name, q)
			}
			for name, q := range sidecars {
				Add(step, name, q)
			}
		}
		Max(initNeed, step)
	}
	Max(total, initNeed)
	return total
}

// podLevelResources are the resources pod-level spec.resources may set.
var podLevelResources = map[api.ResourceName]bool{api.ResourceCPU: true, api.ResourceMemory: true}

// overridePodLevel replaces the containers' sum with the pod-level amount
// for each resource the pod sets at its own level.
func overridePodLevel(total, podLevel api.ResourceList) {
	for name, q := range podLevel {
		if podLevelResources[name] {
			total[name] = q
		}
	}
}

// Add adds q to list[name], setting it when absent.
func Add(list api.ResourceList, name api.ResourceName, q api.Quantity) {
	if sum, ok := list[name]; ok {
		sum.Add(q)
		list[name] = sum
		return
	}
	list[name] = q
}

// Max raises each resource of into to at least from's amount.
func Max(into, from api.ResourceList) {
	for name, q := range from {
		if current, ok := into[name]; !ok || q.Cmp(current) > 0 {
			into[name] = q
		}
	}
}
