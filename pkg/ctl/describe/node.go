package describe

import (
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/resourcehelper"
)

// Node role labels: node-role.kubernetes.io/<role> (any value) or
// kubernetes.io/role=<role>.
const (
	nodeRoleLabelPrefix = "node-role.kubernetes.io/"
	nodeRoleLabel       = "kubernetes.io/role"
)

// describeNode prints a Node: roles, labels, taints, its heartbeat Lease,
// conditions, addresses, capacity and allocatable resources, system info,
// pod CIDRs, the pods running there with what they request, the totals
// allocated, and Events.
func describeNode(in Input, s Settings) (string, error) {
	node, err := decode[api.Node](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", node.Name)
		if roles := nodeRoles(node); len(roles) > 0 {
			w.write(level0, "Roles:\t%s\n", strings.Join(roles, ","))
		} else {
			w.write(level0, "Roles:\t%s\n", "<none>")
		}
		printLabelsMultiline(w, "Labels", node.Labels)
		printAnnotationsMultiline(w, "Annotations", node.Annotations)
		w.write(level0, "CreationTimestamp:\t%s\n", s.timestamp(node.CreationTimestamp.Time))
		printTaintsMultiline(w, "Taints", node.Spec.Taints)
		w.write(level0, "Unschedulable:\t%v\n", node.Spec.Unschedulable)
		describeNodeLease(in.Related, w, s)
		if len(node.Status.Conditions) > 0 {
			w.write(level0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n")
			w.write(level1, "----\t------\t-----------------\t------------------\t------\t-------\n")
			for _, c := range node.Status.Conditions {
				w.write(level1, "%v \t%v \t%s \t%s \t%v \t%v\n", c.Type, c.Status,
					s.timestamp(c.LastHeartbeatTime.Time), s.timestamp(c.LastTransitionTime.Time), c.Reason, c.Message)
			}
		}
		w.write(level0, "Addresses:\n")
		for _, a := range node.Status.Addresses {
			w.write(level1, "%s:\t%s\n", a.Type, a.Address)
		}
		printResources := func(list api.ResourceList) {
			for _, name := range sortedResourceNames(list) {
				w.write(level0, "  %s:\t%s\n", name, list[name].String())
			}
		}
		if len(node.Status.Capacity) > 0 {
			w.write(level0, "Capacity:\n")
			printResources(node.Status.Capacity)
		}
		if len(node.Status.Allocatable) > 0 {
			w.write(level0, "Allocatable:\n")
			printResources(node.Status.Allocatable)
		}
		info := node.Status.NodeInfo
		w.write(level0, "System Info:\n")
		w.write(level0, "  Machine ID:\t%s\n", info.MachineID)
		w.write(level0, "  System UUID:\t%s\n", info.SystemUUID)
		w.write(level0, "  Boot ID:\t%s\n", info.BootID)
		w.write(level0, "  Kernel Version:\t%s\n", info.KernelVersion)
		w.write(level0, "  OS Image:\t%s\n", info.OSImage)
		w.write(level0, "  Operating System:\t%s\n", info.OperatingSystem)
		w.write(level0, "  Architecture:\t%s\n", info.Architecture)
		w.write(level0, "  Container Runtime Version:\t%s\n", info.ContainerRuntimeVersion)
		w.write(level0, "  Kubelet Version:\t%s\n", info.KubeletVersion)
		// kubectl 1.32 still prints the deprecated kube-proxy version.
		w.write(level0, "  Kube-Proxy Version:\t%s\n", info.KubeProxyVersion)
		if node.Spec.PodCIDR != "" {
			w.write(level0, "PodCIDR:\t%s\n", node.Spec.PodCIDR)
		}
		if len(node.Spec.PodCIDRs) > 0 {
			w.write(level0, "PodCIDRs:\t%s\n", strings.Join(node.Spec.PodCIDRs, ","))
		}
		if node.Spec.ProviderID != "" {
			w.write(level0, "ProviderID:\t%s\n", node.Spec.ProviderID)
		}
		if in.Related.PodsErr != nil {
			w.write(level0, "Pods:\tnot authorized\n")
		} else {
			describeNodeResources(in.Related.Pods, node, w, s)
		}
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

// nodeRoles are the roles its labels give a node, sorted.
func nodeRoles(node *api.Node) []string {
	var roles []string
	for k, v := range node.Labels {
		switch {
		case strings.HasPrefix(k, nodeRoleLabelPrefix):
			if role := strings.TrimPrefix(k, nodeRoleLabelPrefix); role != "" && !slices.Contains(roles, role) {
				roles = append(roles, role)
			}
		case k == nodeRoleLabel && v != "":
			if !slices.Contains(roles, v) {
				roles = append(roles, v)
			}
		}
	}
	slices.Sort(roles)
	return roles
}

// describeNodeLease prints who holds the node's heartbeat Lease and when
// it was last renewed.
func describeNodeLease(rel Related, w prefixWriter, s Settings) {
	if rel.LeaseErr != nil {
		w.write(level0, "Lease:\tFailed to get lease: %s\n", rel.LeaseErr)
		return
	}
	w.write(level0, "Lease:\n")
	holder, acquire, renew := "<unset>", "<unset>", "<unset>"
	if l := rel.Lease; l != nil {
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		if l.Spec.AcquireTime != nil {
			acquire = s.timestamp(l.Spec.AcquireTime.Time)
		}
		if l.Spec.RenewTime != nil {
			renew = s.timestamp(l.Spec.RenewTime.Time)
		}
	}
	w.write(level1, "HolderIdentity:\t%s\n", holder)
	w.write(level1, "AcquireTime:\t%s\n", acquire)
	w.write(level1, "RenewTime:\t%s\n", renew)
}

// describeNodeResources prints the node's non-terminated pods with their
// cpu and memory requests and limits (and the share of the node's
// allocatable each is), then the totals.
func describeNodeResources(pods []api.Pod, node *api.Node, w prefixWriter, s Settings) {
	w.write(level0, "Non-terminated Pods:\t(%d in total)\n", len(pods))
	w.write(level1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n")
	w.write(level1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n")
	allocatable := node.Status.Capacity
	if len(node.Status.Allocatable) > 0 {
		allocatable = node.Status.Allocatable
	}
	allocCPU := allocatable.Cpu().MilliValue()
	allocMemory := allocatable.Memory().Value()
	for i := range pods {
		pod := &pods[i]
		req, limit := podRequests(pod), podLimits(pod)
		cpuReq, cpuLimit := req[api.ResourceCPU], limit[api.ResourceCPU]
		memReq, memLimit := req[api.ResourceMemory], limit[api.ResourceMemory]
		w.write(level1, "%s\t%s\t\t%s (%d%%)\t%s (%d%%)\t%s (%d%%)\t%s (%d%%)\t%s\n", pod.Namespace, pod.Name,
			cpuReq.String(), percent(cpuReq.MilliValue(), allocCPU), cpuLimit.String(), percent(cpuLimit.MilliValue(), allocCPU),
			memReq.String(), percent(memReq.Value(), allocMemory), memLimit.String(), percent(memLimit.Value(), allocMemory),
			s.since(pod.CreationTimestamp.Time))
	}

	w.write(level0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n")
	w.write(level1, "Resource\tRequests\tLimits\n")
	w.write(level1, "--------\t--------\t------\n")
	reqs, limits := api.ResourceList{}, api.ResourceList{}
	for i := range pods {
		for name, q := range podRequests(&pods[i]) {
			resourcehelper.Add(reqs, name, q)
		}
		for name, q := range podLimits(&pods[i]) {
			resourcehelper.Add(limits, name, q)
		}
	}
	row := func(name string, milli bool) {
		r, l, a := reqs[name], limits[name], allocatable[name]
		value := api.Quantity.Value
		if milli {
			value = api.Quantity.MilliValue
		}
		w.write(level1, "%s\t%s (%d%%)\t%s (%d%%)\n", name, r.String(), percent(value(r), value(a)), l.String(), percent(value(l), value(a)))
	}
	row(api.ResourceCPU, true)
	row(api.ResourceMemory, false)
	row(api.ResourceEphemeralStorage, false)

	var hugePages, extended []string
	for name := range allocatable {
		switch {
		case strings.HasPrefix(name, "hugepages-"):
			hugePages = append(hugePages, name)
		case !isStandardContainerResource(name) && name != api.ResourcePods:
			extended = append(extended, name)
		}
	}
	slices.Sort(hugePages)
	slices.Sort(extended)
	for _, name := range hugePages {
		row(name, false)
	}
	for _, name := range extended {
		r, l := reqs[name], limits[name]
		w.write(level1, "%s\t%s\t%s\n", name, r.String(), l.String())
	}
}

// percent is part/whole in whole percent, rounded down; 0 when the whole
// is unknown.
func percent(part, whole int64) int64 {
	if whole == 0 {
		return 0
	}
	return int64(float64(part) / float64(whole) * 100)
}

// isStandardContainerResource reports the resources a container may
// request that are not extended resources (upstream's
// IsStandardContainerResourceName): cpu, memory, ephemeral-storage and
// huge pages.
func isStandardContainerResource(name string) bool {
	switch name {
	case api.ResourceCPU, api.ResourceMemory, api.ResourceEphemeralStorage:
		return true
	}
	return strings.HasPrefix(name, "hugepages-")
}
