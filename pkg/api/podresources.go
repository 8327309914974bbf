package api

// This file sums a pod's requests and limits the way upstream's
// resourcehelper.PodRequests and PodLimits do (k8s.io/component-helpers/
// resource/helpers.go). The scheduler's view, `describe node`, and
// ResourceQuota's charge for a pod all start from these figures.

// PodRequests is what a pod asks for in total: the sum of its containers'
// requests, or more if an init container (plus the sidecars started before
// it) asks for more, plus the pod overhead.
func PodRequests(pod *Pod) ResourceList {
	return podTotals(pod, func(r ResourceRequirements) ResourceList { return r.Requests }, true)
}

// PodLimits is PodRequests for limits; the overhead is added only to
// resources that have a limit.
func PodLimits(pod *Pod) ResourceList {
	return podTotals(pod, func(r ResourceRequirements) ResourceList { return r.Limits }, false)
}

// podTotals sums what pick returns for every container of pod. Init
// containers run one at a time before the main containers, so they count
// by their maximum; a sidecar (an init container with restartPolicy
// Always) keeps running and adds to everything after it.
func podTotals(pod *Pod, pick func(ResourceRequirements) ResourceList, requests bool) ResourceList {
	total := ResourceList{}
	for _, c := range pod.Spec.Containers {
		total.add(pick(c.Resources))
	}
	sidecars := ResourceList{}
	initMax := ResourceList{}
	for _, c := range pod.Spec.InitContainers {
		own := pick(c.Resources)
		needed := ResourceList{}
		if c.RestartPolicy != nil && *c.RestartPolicy == ContainerRestartPolicyAlways {
			total.add(own)
			sidecars.add(own)
			needed.add(sidecars)
		} else {
			needed.add(own)
			needed.add(sidecars)
		}
		initMax.raiseTo(needed)
	}
	total.raiseTo(initMax)
	for name, q := range pod.Spec.Overhead {
		if _, ok := total[name]; requests || ok {
			total.add(ResourceList{name: q})
		}
	}
	return total
}

// add adds every amount of other to l.
func (l ResourceList) add(other ResourceList) {
	for name, q := range other {
		if sum, ok := l[name]; ok {
			sum.Add(q)
			l[name] = sum
			continue
		}
		l[name] = q
	}
}

// raiseTo raises each resource of l to at least other's amount.
func (l ResourceList) raiseTo(other ResourceList) {
	for name, q := range other {
		if cur, ok := l[name]; !ok || q.Cmp(cur) > 0 {
			l[name] = q
		}
	}
}
