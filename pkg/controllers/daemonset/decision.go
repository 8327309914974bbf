package daemonset

// This file turns a sync's plan into decision records for the debug
// journal (what `ctl why daemonset/x` shows): the node-by-node plan when
// it creates or deletes pods or waits out a failed pod's back-off, and the
// rolling update's deletions. A sync with nothing to create or delete
// records nothing.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file whose manage and rollingUpdate the
// plan mirrors.
const decisionSource = "pkg/controller/daemon/daemon_controller.go"

// recordPlan records the node-by-node plan of manage, e.g. "DaemonSet
// wants a pod on 2 of 3 nodes, 0 of them have one → create on n1, n2;
// delete none". backingOff lists the failed pods whose replacement waits.
func (c *Controller) recordPlan(key string, ds *api.DaemonSet, nodes []*api.Node, byNode map[string][]*api.Pod, createOn []string, toDelete []*api.Pod, backingOff []string) {
	if !c.decisions.Enabled() || (len(createOn) == 0 && len(toDelete) == 0 && len(backingOff) == 0) {
		return
	}
	wanted, have := 0, 0
	lines := make([]string, 0, len(nodes))
	for _, node := range nodes {
		where := nodePlacement(node, ds)
		pods := len(byNode[node.Name])
		verdict := "not eligible (nodeName, node selector, affinity or an untolerated NoExecute taint)"
		switch {
		case where.shouldRun:
			wanted++
			verdict = "eligible"
			if pods > 0 {
				have++
			}
		case where.shouldContinueRunning:
			verdict = "no new pod (untolerated NoSchedule taint), an existing one may stay"
		}
		lines = append(lines, fmt.Sprintf("%s: %s, %d pods", node.Name, verdict, pods))
	}
	slices.Sort(lines) // the lister's order is random; node name order reads
	lines = append(lines, backingOff...)
	action := "create on " + orNone(createOn) + "; delete " + orNone(podNames(toDelete))
	if len(createOn) == 0 && len(toDelete) == 0 {
		action = "wait: failed pods back off before they are replaced"
	}
	c.decisions.Record(&ds.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("DaemonSet wants a pod on %d of %d nodes, %d of them have one → %s", wanted, len(nodes), have, action),
		Values: map[string]string{
			"nodes":      strconv.Itoa(len(nodes)),
			"eligible":   strconv.Itoa(wanted),
			"scheduled":  strconv.Itoa(have),
			"create":     strconv.Itoa(len(createOn)),
			"delete":     strconv.Itoa(len(toDelete)),
			"backingOff": strconv.Itoa(len(backingOff)),
		},
		Lines:  lines,
		Source: decisionSource,
	})
}

// recordRollingUpdate records the old pods a RollingUpdate deletes now,
// e.g. "RollingUpdate, maxUnavailable 1 of 2 nodes → delete old pod a".
func (c *Controller) recordRollingUpdate(key string, ds *api.DaemonSet, desired, budget int, victims []*api.Pod) {
	if !c.decisions.Enabled() {
		return
	}
	c.decisions.Record(&ds.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("RollingUpdate, maxUnavailable %d of %d nodes → delete old pods %s (the next sync creates their replacements)",
			budget, desired, strings.Join(podNames(victims), ", ")),
		Values: map[string]string{
			"desired":        strconv.Itoa(desired),
			"maxUnavailable": strconv.Itoa(budget),
			"delete":         strconv.Itoa(len(victims)),
		},
		Source: "pkg/controller/daemon/update.go",
	})
}

// backOffLine is one failed pod's wait, a row of recordPlan.
func backOffLine(pod *api.Pod, node string, wait time.Duration) string {
	return fmt.Sprintf("%s: failed pod %s backs off, replaced in %s", node, pod.Name, wait.Round(time.Second))
}

// orNone joins names, or says "none".
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
