package statefulset

// This file records, for the debug journal (what `ctl why sts/x` shows),
// the step plan chose: the pods to create or delete, and why; or, when it
// chose none, which pod an OrderedReady set or a rolling update waits for.
// A set whose pods are all there, Running, Ready and updated records
// nothing.

import (
	"fmt"
	"strconv"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose updateStatefulSet plan
// mirrors.
const decisionSource = "pkg/controller/statefulset/stateful_set_control.go"

// recordPlan records the actions plan chose from in, e.g. "StatefulSet
// wants 3 replicas (OrderedReady, RollingUpdate partition 0): 1 exist, 1
// Running and Ready → create web-1 (missing)".
func (c *Controller) recordPlan(set *api.StatefulSet, in planInput, actions []action) {
	if !c.decisions.Enabled() {
		return
	}
	replicas, condemned := splitPods(in)
	existing, healthy, updated := 0, 0, 0
	waitFor := ""
	for i, pod := range replicas {
		if pod == nil {
			if waitFor == "" {
				waitFor = podName(set, in.Start+i) + " to be created"
			}
			continue
		}
		existing++
		switch {
		case isHealthy(pod):
			healthy++
		case waitFor == "" && isTerminating(pod):
			waitFor = pod.Name + " to be gone"
		case waitFor == "":
			waitFor = pod.Name + " to be Running and Ready"
		}
		if revisionOf(pod) == in.UpdateRevision {
			updated++
		}
	}
	if len(actions) == 0 && (waitFor == "" || in.Parallel) && len(condemned) == 0 {
		return // nothing to do and nothing plan waits for
	}

	var steps []string
	for _, a := range actions {
		name := podName(set, a.Ordinal)
		if a.Pod != nil {
			name = a.Pod.Name
		}
		steps = append(steps, fmt.Sprintf("%s %s (%s)", a.Type, name, a.Reason))
	}
	action := strings.Join(steps, ", ")
	if len(actions) == 0 {
		if waitFor == "" {
			waitFor = "the pods beyond the replicas to be gone"
		}
		action = "wait for " + waitFor
	}
	policy := "OrderedReady"
	if in.Parallel {
		policy = "Parallel"
	}
	strategy := fmt.Sprintf("RollingUpdate partition %d", in.Partition)
	if in.OnDelete {
		strategy = "OnDelete"
	}
	c.decisions.Record(&set.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("StatefulSet wants %d replicas (%s, %s): %d exist, %d Running and Ready, %d at revision %s, %d beyond the replicas → %s",
			in.Replicas, policy, strategy, existing, healthy, updated, in.UpdateRevision, len(condemned), action),
		Values: map[string]string{
			"replicas":  strconv.Itoa(in.Replicas),
			"existing":  strconv.Itoa(existing),
			"ready":     strconv.Itoa(healthy),
			"updated":   strconv.Itoa(updated),
			"condemned": strconv.Itoa(len(condemned)),
			"actions":   strconv.Itoa(len(actions)),
		},
		Source: decisionSource,
	})
}
