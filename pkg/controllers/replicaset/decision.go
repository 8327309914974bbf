package replicaset

// This file builds the decision record `ctl why rs/NAME` prints for one
// sync, e.g.
//
//	ReplicaSet wants 3, has 2 (1 terminating): create 1 (slow start batches 1)
//	ReplicaSet wants 2, has 3: delete 1: web-7d9c-x2k4p
//	  web-7d9c-x2k4p: Pending, web-7d9c-9qz7w kept is Running
//	ReplicaSet wants 3, has 1: waiting for 2 creates and 0 deletes to be observed
//
// from the counts Sync computed. With the debug API off c.decisions is nil,
// startDecision returns nil and nothing here runs.

import (
	"fmt"
	"strconv"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/debug"
)

// sourceReplicaSet is the upstream file the records mirror: its
// manageReplicas (creates in slow-start batches, deletes by rank) and the
// expectations check of syncReplicaSet. The ranking itself is
// pkg/controller/controller_utils.go's ActivePodsWithRanks.
const sourceReplicaSet = "pkg/controller/replicaset/replica_set.go"

// replicaDecision is what one sync decided about an owner.
type replicaDecision struct {
	wants, has int
	// terminating counts the owner's pods that are being deleted or have
	// finished: they exist but are replicas no more.
	terminating int
	action      string
	lines       []string
	values      map[string]string
}

// startDecision begins the record of a sync that found pods (the active
// pods the owner controls) among allPods, or returns nil when nobody
// records decisions.
func (c *Controller[T]) startDecision(owner T, view Owner, pods, allPods []*api.Pod) *replicaDecision {
	if !c.decisions.Enabled() {
		return nil
	}
	uid := owner.GetObjectMeta().UID
	terminating := 0
	for _, pod := range allPods {
		if controllerutil.IsControlledBy(&pod.ObjectMeta, uid) && !controllerutil.IsPodActive(pod) {
			terminating++
		}
	}
	return &replicaDecision{wants: int(view.Replicas), has: len(pods), terminating: terminating, values: map[string]string{}}
}

// waiting notes that the expectations of earlier creates and deletes are
// not met: the sync only writes status.
func (r *replicaDecision) waiting(adds, deletes int) {
	if r == nil {
		return
	}
	r.action = fmt.Sprintf("waiting for %d creates and %d deletes to be observed before acting again", adds, deletes)
	r.values["pendingCreates"], r.values["pendingDeletes"] = strconv.Itoa(adds), strconv.Itoa(deletes)
}

// created notes a create of n pods (want, before the burst cap) of which
// successes succeeded.
func (r *replicaDecision) created(want, n, burst, successes int, err error) {
	if r == nil {
		return
	}
	batches := controllerutil.SlowStartBatchSizes(n, controllerutil.SlowStartInitialBatchSize)
	parts := make([]string, len(batches))
	for i, b := range batches {
		parts[i] = strconv.Itoa(b)
	}
	r.action = fmt.Sprintf("create %d (slow start batches %s)", n, strings.Join(parts, ", "))
	if want > n {
		r.lines = append(r.lines, fmt.Sprintf("%d missing, capped at burstReplicas %d per sync", want, burst))
	}
	if err != nil {
		r.lines = append(r.lines, fmt.Sprintf("created %d, then a create failed and slow start stopped: %v", successes, err))
	}
	r.values["create"], r.values["created"] = strconv.Itoa(n), strconv.Itoa(successes)
}

// maxVictimsNamed bounds how many deleted pods one record names, each with
// its reason: a scale-down by hundreds would otherwise make one record
// hundreds of lines long.
const maxVictimsNamed = 10

// deleted notes the deletion of victims, each with why it ranked first.
func (r *replicaDecision) deleted(want, burst int, victims []*api.Pod, reasons []string) {
	if r == nil {
		return
	}
	named := victims[:min(len(victims), maxVictimsNamed)]
	names := make([]string, len(named))
	for i, pod := range named {
		names[i] = pod.Name
		r.lines = append(r.lines, pod.Name+": "+reasons[i])
	}
	list := strings.Join(names, ", ")
	if more := len(victims) - len(named); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	r.action = fmt.Sprintf("delete %d: %s", len(victims), list)
	if want > len(victims) {
		r.lines = append(r.lines, fmt.Sprintf("%d too many, capped at burstReplicas %d per sync", want, burst))
	}
	r.values["delete"] = strconv.Itoa(len(victims))
}

// record writes r as c's decision about owner.
func (c *Controller[T]) record(owner T, r *replicaDecision) {
	if r == nil {
		return
	}
	has := strconv.Itoa(r.has)
	if r.terminating > 0 {
		has += fmt.Sprintf(" (%d terminating)", r.terminating)
	}
	action := r.action
	if action == "" {
		action = "nothing to do"
	}
	r.values["wants"], r.values["has"], r.values["terminating"] = strconv.Itoa(r.wants), strconv.Itoa(r.has), strconv.Itoa(r.terminating)
	c.decisions.Record(owner.GetObjectMeta(), debug.Decision{
		Message: fmt.Sprintf("%s wants %d, has %s: %s", c.kind.Kind, r.wants, has, action),
		Values:  r.values,
		Lines:   r.lines,
		Source:  sourceReplicaSet,
	})
}
