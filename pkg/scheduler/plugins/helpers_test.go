package plugins

import (
	"kplane/pkg/api"
	"kplane/pkg/scheduler/framework"
)

// node builds a NodeInfo for a node with the given allocatable (cpu,
// memory, pods) and the pods already on it.
func node(name, cpu, memory, pods string, existing ...*api.Pod) *framework.NodeInfo {
	alloc := api.ResourceList{}
	if cpu != "" {
		alloc[api.ResourceCPU] = api.MustParseQuantity(cpu)
	}
	if memory != "" {
		alloc[api.ResourceMemory] = api.MustParseQuantity(memory)
	}
	if pods != "" {
		alloc[api.ResourcePods] = api.MustParseQuantity(pods)
	}
	n := framework.NewNodeInfo(&api.Node{ObjectMeta: api.ObjectMeta{Name: name}, Status: api.NodeStatus{Allocatable: alloc}})
	for _, p := range existing {
		n.AddPod(framework.NewPodInfo(p))
	}
	return n
}

// withNode returns n after changing its Node object.
func withNode(n *framework.NodeInfo, mutate func(*api.Node)) *framework.NodeInfo {
	mutate(n.Node)
	return n
}

var podCount int

// pod builds a pod with one container requesting cpu and memory ("" = no
// request), changed by mutate.
func pod(cpu, memory string, mutate ...func(*api.Pod)) *api.Pod {
	podCount++
	req := api.ResourceList{}
	if cpu != "" {
		req[api.ResourceCPU] = api.MustParseQuantity(cpu)
	}
	if memory != "" {
		req[api.ResourceMemory] = api.MustParseQuantity(memory)
	}
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "p" + string(rune('a'+podCount%26)) + string(rune('a'+podCount/26%26))},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Resources: api.ResourceRequirements{Requests: req}}}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func info(p *api.Pod) *framework.PodInfo { return framework.NewPodInfo(p) }

// verdict renders a Status as the test tables state it: "" for success,
// else "Code: reason, reason".
func verdict(st *framework.Status) string {
	if st.IsSuccess() {
		return ""
	}
	return st.Code().String() + ": " + st.Message()
}
