package daemonset

import (
	"slices"
	"sort"
	"strconv"

	"kplane/pkg/api"
)

// nodePlan is what one sync should do to bring ds's pods in line with the
// nodes, before rolling updates: the output of planNodes.
type nodePlan struct {
	// createOn are the nodes that should run a daemon pod and have none.
	createOn []string
	// deletePods are pods to delete: extras on a node that has more than
	// one, pods that finished (Succeeded), pods on nodes that may not run
	// them any more or that are gone.
	deletePods []*api.Pod
	// failedPods are Failed daemon pods on nodes that should keep theirs.
	// They are to be deleted (the next sync creates a replacement), but
	// the caller applies a back-off first: a kubelet that keeps rejecting
	// the pod would otherwise fight the controller in a hot loop.
	failedPods []*api.Pod
	// placements are, by node name, where ds's pod belongs (nodePlacement)
	// on every node planned: the decision record's lines.
	placements map[string]placement
}

// groupPodsByNode files ds's pods under the node each belongs to
// (targetNodeName). Pods without one are returned apart: the controller
// never created such a pod, so it logs them and leaves them alone.
func groupPodsByNode(pods []*api.Pod) (byNode map[string][]*api.Pod, unplaced []*api.Pod) {
	byNode = map[string][]*api.Pod{}
	for _, pod := range pods {
		node, err := targetNodeName(pod)
		if err != nil {
			unplaced = append(unplaced, pod)
			continue
		}
		byNode[node] = append(byNode[node], pod)
	}
	return byNode, unplaced
}

// planNodes compares ds's pods (byNode, from groupPodsByNode) with the
// nodes, node by node, as upstream's podsShouldBeOnNode:
//
//   - a node that should run the pod and has none gets one;
//   - a node whose pod may stay keeps one running pod: Failed pods are
//     replaced, Succeeded pods deleted, and of several running pods the
//     oldest stays and the others go;
//   - a node that may not run the pod (not eligible any more, or an
//     untolerated NoExecute taint) loses all of them;
//   - pods pinned to a node that no longer exists go too, so that pods
//     leave when their node leaves. (Upstream deletes only the unscheduled
//     ones here and leaves bound pods on a vanished node to the pod garbage
//     collector, which kplane does not run.)
//
// Pods already being deleted are waited for, never deleted twice; while a
// node still has one, no new pod is created there.
func planNodes(ds *api.DaemonSet, nodes []*api.Node, byNode map[string][]*api.Pod) nodePlan {
	plan := nodePlan{placements: make(map[string]placement, len(nodes))}
	known := make(map[string]bool, len(nodes))
	for _, node := range nodes {
		known[node.Name] = true
		where := nodePlacement(node, ds)
		plan.placements[node.Name] = where
		pods, exists := byNode[node.Name]
		switch {
		case where.shouldRun && !exists:
			plan.createOn = append(plan.createOn, node.Name)
		case where.shouldContinueRunning:
			var running []*api.Pod
			for _, pod := range pods {
				switch {
				case pod.DeletionTimestamp != nil:
				case pod.Status.Phase == api.PodFailed:
					plan.failedPods = append(plan.failedPods, pod)
				case pod.Status.Phase == api.PodSucceeded:
					plan.deletePods = append(plan.deletePods, pod)
				default:
					running = append(running, pod)
				}
			}
			if len(running) > 1 {
				sortOldestFirst(running)
				plan.deletePods = append(plan.deletePods, running[1:]...)
			}
		case exists:
			plan.deletePods = append(plan.deletePods, notDeleting(pods)...)
		}
	}
	// Pods on nodes that are gone, in node order so the plan is stable.
	var gone []string
	for name := range byNode {
		if !known[name] {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	for _, name := range gone {
		plan.deletePods = append(plan.deletePods, notDeleting(byNode[name])...)
	}
	return plan
}

// notDeleting returns the pods without a deletionTimestamp.
func notDeleting(pods []*api.Pod) []*api.Pod {
	var out []*api.Pod
	for _, pod := range pods {
		if pod.DeletionTimestamp == nil {
			out = append(out, pod)
		}
	}
	return out
}

// sortOldestFirst orders pods by creation time, then running before
// pending, then name (upstream's podByCreationTimestampAndPhase), so the
// pod that has been serving longest is the one kept.
func sortOldestFirst(pods []*api.Pod) {
	slices.SortStableFunc(pods, func(a, b *api.Pod) int {
		if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		aRunning, bRunning := a.Status.Phase == api.PodRunning, b.Status.Phase == api.PodRunning
		if aRunning != bRunning {
			if aRunning {
				return -1
			}
			return 1
		}
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
}

// isPodUpdated reports whether pod was made from ds's current template:
// its controller-revision-hash label names the current revision, or its
// pod-template-generation label the current template generation
// (upstream's IsPodUpdated).
func isPodUpdated(pod *api.Pod, hash string, generation int64) bool {
	if hash != "" && pod.Labels[api.ControllerRevisionHashLabelKey] == hash {
		return true
	}
	return generation > 0 && pod.Labels[PodTemplateGenerationLabel] == strconv.FormatInt(generation, 10)
}
