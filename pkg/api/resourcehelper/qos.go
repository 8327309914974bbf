package resourcehelper

import "kplane/pkg/api"

// QOSClass computes a pod's quality-of-service class from its containers'
// requests and limits, as the kubelet and upstream's admission do. Only cpu
// and memory count: a pod none of whose containers requests or limits
// either is BestEffort; one whose every container limits both, with any
// request equal to its limit, is Guaranteed; anything else is Burstable.
// Admission records the class in status.qosClass when the pod is created.
func QOSClass(spec *api.PodSpec) api.PodQOSClass {
	anySet, allGuaranteed := false, true
	for _, containers := range [][]api.Container{spec.InitContainers, spec.Containers} {
		for _, c := range containers {
			for _, name := range []api.ResourceName{api.ResourceCPU, api.ResourceMemory} {
				req, hasReq := c.Resources.Requests[name]
				lim, hasLim := c.Resources.Limits[name]
				if hasReq || hasLim {
					anySet = true
				}
				if !hasLim || (hasReq && req.Cmp(lim) != 0) {
					allGuaranteed = false
				}
			}
		}
	}
	switch {
	case !anySet:
		return api.PodQOSBestEffort
	case allGuaranteed:
		return api.PodQOSGuaranteed
	}
	return api.PodQOSBurstable
}
