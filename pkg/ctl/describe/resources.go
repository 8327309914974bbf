package describe

import (
	"kplane/pkg/api"
)

// podQOS is the pod's quality-of-service class: the one in its status,
// else computed from its containers' requests and limits (upstream's
// qos.GetPodQOS). Only cpu and memory count. No request or limit at all is
// BestEffort; every container limiting both with requests equal to limits
// is Guaranteed; anything else is Burstable.
func podQOS(pod *api.Pod) api.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	requests, limits := api.ResourceList{}, api.ResourceList{}
	guaranteed := true
	containers := append(append([]api.Container(nil), pod.Spec.Containers...), pod.Spec.InitContainers...)
	for _, c := range containers {
		for name, q := range c.Resources.Requests {
			if isQOSResource(name) && q.Sign() > 0 {
				addQuantity(requests, name, q)
			}
		}
		limited := map[string]bool{}
		for name, q := range c.Resources.Limits {
			if isQOSResource(name) && q.Sign() > 0 {
				limited[name] = true
				addQuantity(limits, name, q)
			}
		}
		if !limited[api.ResourceCPU] || !limited[api.ResourceMemory] {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return api.PodQOSBestEffort
	}
	if guaranteed {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return api.PodQOSGuaranteed
	}
	return api.PodQOSBurstable
}

func isQOSResource(name string) bool {
	return name == api.ResourceCPU || name == api.ResourceMemory
}

// addQuantity adds q to list[name].
func addQuantity(list api.ResourceList, name string, q api.Quantity) {
	if sum, ok := list[name]; ok {
		sum.Add(q)
		list[name] = sum
		return
	}
	list[name] = q
}

// maxQuantities raises each resource of into to at least from's.
func maxQuantities(into, from api.ResourceList) {
	for name, q := range from {
		if cur, ok := into[name]; !ok || q.Cmp(cur) > 0 {
			into[name] = q
		}
	}
}

// podRequests is what the scheduler reserves for a pod: the sum of its
// containers' requests, or more if an init container (plus the sidecars
// started before it) asks for more, plus the pod overhead (upstream's
// resourcehelper.PodRequests).
func podRequests(pod *api.Pod) api.ResourceList {
	return podTotals(pod, func(r api.ResourceRequirements) api.ResourceList { return r.Requests }, true)
}

// podLimits is podRequests for limits; the overhead is added only to
// resources that have a limit.
func podLimits(pod *api.Pod) api.ResourceList {
	return podTotals(pod, func(r api.ResourceRequirements) api.ResourceList { return r.Limits }, false)
}

func podTotals(pod *api.Pod, pick func(api.ResourceRequirements) api.ResourceList, requests bool) api.ResourceList {
	total := api.ResourceList{}
	for _, c := range pod.Spec.Containers {
		for name, q := range pick(c.Resources) {
			addQuantity(total, name, q)
		}
	}
	sidecars := api.ResourceList{}
	initMax := api.ResourceList{}
	for _, c := range pod.Spec.InitContainers {
		own := pick(c.Resources)
		var needed api.ResourceList
		if c.RestartPolicy != nil && *c.RestartPolicy == api.ContainerRestartPolicyAlways {
			// A sidecar keeps running beside the main containers.
			for name, q := range own {
				addQuantity(total, name, q)
				addQuantity(sidecars, name, q)
			}
			needed = sidecars
		} else {
			needed = api.ResourceList{}
			for name, q := range own {
				addQuantity(needed, name, q)
			}
			for name, q := range sidecars {
				addQuantity(needed, name, q)
			}
		}
		maxQuantities(initMax, needed)
	}
	maxQuantities(total, initMax)
	for name, q := range pod.Spec.Overhead {
		if _, ok := total[name]; requests || ok {
			addQuantity(total, name, q)
		}
	}
	return total
}
