package tainteviction

// This file records, for the debug journal (what `ctl why pod/x` shows),
// the fate the sync decides for a pod on a node with NoExecute taints:
// evicted now, evicted at a time its tolerationSeconds allow, or a
// scheduled eviction cancelled. A pod whose node has no NoExecute taint,
// or who tolerates them for ever, records nothing: that is the usual case.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/debug"
	"kplane/pkg/scheduler/plugins"
)

// decisionSource is the upstream file whose handlePodUpdate and
// processPodOnNode these mirror.
const decisionSource = "pkg/controller/tainteviction/taint_eviction.go"

// recordUntolerated records the eviction of a pod that does not tolerate
// one of its node's NoExecute taints.
func (c *Controller) recordUntolerated(pod *api.Pod, taints []api.Taint) {
	if !c.decisions.Enabled() {
		return
	}
	var untolerated []string
	for i := range taints {
		if !plugins.TolerationsTolerateTaint(pod.Spec.Tolerations, &taints[i]) {
			untolerated = append(untolerated, taintString(taints[i]))
		}
	}
	c.decisions.Record(&pod.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("pod %s on %s does not tolerate %s → evict now",
			pod.Name, pod.Spec.NodeName, strings.Join(untolerated, ", ")),
		Values: map[string]string{"node": pod.Spec.NodeName, "untolerated": strconv.Itoa(len(untolerated))},
		Source: decisionSource,
	})
}

// recordTolerated records the eviction time of a pod that tolerates its
// node's NoExecute taints for wait, counted from since: "pod web-1
// tolerates node.kubernetes.io/unreachable:NoExecute for 300s → evict at
// 12:40:00", or "→ evict now" once that time has come.
func (c *Controller) recordTolerated(pod *api.Pod, taints []api.Taint, wait time.Duration, since, now time.Time) {
	if !c.decisions.Enabled() {
		return
	}
	names := make([]string, len(taints))
	for i, t := range taints {
		names[i] = taintString(t)
	}
	deadline := since.Add(wait)
	action := "evict at " + deadline.UTC().Format(time.TimeOnly)
	if !now.Before(deadline) {
		action = fmt.Sprintf("the time ran out at %s: evict now", deadline.UTC().Format(time.TimeOnly))
	}
	c.decisions.Record(&pod.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("pod %s on %s tolerates %s for %ds (the shortest tolerationSeconds), since %s → %s",
			pod.Name, pod.Spec.NodeName, strings.Join(names, ", "), int64(wait/time.Second), since.UTC().Format(time.TimeOnly), action),
		Values: map[string]string{
			"node":              pod.Spec.NodeName,
			"tolerationSeconds": strconv.FormatInt(int64(wait/time.Second), 10),
			"evictAt":           deadline.UTC().Format(time.RFC3339),
		},
		Source: decisionSource,
	})
}

// recordCancelled records that a scheduled eviction no longer holds.
func (c *Controller) recordCancelled(namespace, name string) {
	if !c.decisions.Enabled() {
		return
	}
	c.decisions.Record(&api.ObjectMeta{Namespace: namespace, Name: name}, debug.Decision{
		Message: fmt.Sprintf("pod %s: no NoExecute taint left that it tolerates only for a while (taint removed, or the pod gone) → cancel its scheduled eviction", name),
		Source:  decisionSource,
	})
}

// taintString renders a taint as kubectl does: key=value:Effect.
func taintString(t api.Taint) string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	return s + ":" + string(t.Effect)
}
