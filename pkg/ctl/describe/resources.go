package describe

import (
	"kplane/pkg/api"
	"kplane/pkg/api/resourcehelper"
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
				resourcehelper.Add(requests, name, q)
			}
		}
		limited := map[string]bool{}
		for name, q := range c.Resources.Limits {
			if isQOSResource(name) && q.Sign() > 0 {
				limited[name] = true
				resourcehelper.Add(limits, name, q)
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

// podRequests is what the scheduler reserves for a pod (upstream's
// resourcehelper.PodRequests).
func podRequests(pod *api.Pod) api.ResourceList {
	return resourcehelper.PodRequests(pod, resourcehelper.Options{})
}

// podLimits is the pod's total limits.
func podLimits(pod *api.Pod) api.ResourceList {
	return resourcehelper.PodLimits(pod, resourcehelper.Options{})
}
