package kubelet

import (
	"encoding/json"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/debug"
)

// writeHook is the kubelet's client write hook: each write goes into the
// debug journal (nil journal: no hook), and a pod status write says what it
// reported, so `ctl trace` shows "phase Running, ready 1/1" on the line of
// the write that made the pod Running.
func writeHook(j *debug.Journal) func(client.WriteInfo) {
	return j.WriteHook("kubelet", describeWrite)
}

// describeWrite words a pod status write as the phase and the ready
// containers it reported; other writes need no words.
func describeWrite(w client.WriteInfo) string {
	if w.Resource != "pods" || w.Subresource != "status" {
		return ""
	}
	var pod api.Pod
	if err := json.Unmarshal(w.Response, &pod); err != nil {
		return ""
	}
	return podStatusSummary(&pod)
}

// podStatusSummary is "phase Running, ready 1/1": the pod's phase and how
// many of its containers are ready, kubectl's READY column.
func podStatusSummary(pod *api.Pod) string {
	ready := 0
	for _, s := range pod.Status.ContainerStatuses {
		if s.Ready {
			ready++
		}
	}
	return fmt.Sprintf("phase %s, ready %d/%d", pod.Status.Phase, ready, len(pod.Spec.Containers))
}
