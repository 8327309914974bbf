package framework

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrNoNodesAvailable is the failure when the cluster has no nodes at all;
// its text is upstream's.
var ErrNoNodesAvailable = errors.New("no nodes available to schedule pods")

// FitError is the failure of a scheduling cycle in which no node passed the
// filters: it remembers each rejected node's Status so the message can say
// why, node by node, in aggregate — or, when a PreFilter plugin rejected
// the pod before any node was tried, that plugin's message.
type FitError struct {
	// Pod is "namespace/name" of the pod that did not fit.
	Pod string
	// NumAllNodes is how many nodes the cluster has.
	NumAllNodes int
	// NodeStatuses maps each rejected node's name to its Status; empty
	// after a PreFilter rejection.
	NodeStatuses map[string]*Status
	// PreFilterMessage is the message of the PreFilter plugin that
	// rejected the pod, or "" when the filters ran.
	PreFilterMessage string
}

// Error renders the message of the FailedScheduling event and of the pod's
// PodScheduled condition, in upstream's shape:
//
//	0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }.
//
// Every reason of every rejected node is counted; each count is written
// before its reason, and the "count reason" strings are sorted as strings
// (so "10 …" sorts before "2 …", exactly as upstream's sort.Strings does).
//
// A PreFilter rejection has no nodes to count: the message is the
// plugin's, once, with the same frame —
//
//	0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.
//
// Upstream then appends what its PostFilter plugins said — with the
// default profile that is DefaultPreemption, e.g. " preemption: 0/3 nodes
// are available: 3 No preemption victims found for incoming pod." (or,
// after a PreFilter rejection, "… 3 Preemption is not helpful for
// scheduling."). kplane has no preemption, so nothing is appended; that is
// also exactly what upstream 1.32 prints when preemption is disabled.
func (f *FitError) Error() string {
	msg := fmt.Sprintf("0/%d nodes are available:", f.NumAllNodes)
	if f.PreFilterMessage != "" {
		return msg + " " + f.PreFilterMessage + "."
	}
	counts := map[string]int{}
	for _, st := range f.NodeStatuses {
		for _, reason := range st.Reasons() {
			counts[reason]++
		}
	}
	histogram := make([]string, 0, len(counts))
	for reason, n := range counts {
		histogram = append(histogram, fmt.Sprintf("%d %s", n, reason))
	}
	sort.Strings(histogram)
	if len(histogram) > 0 {
		msg += " " + strings.Join(histogram, ", ") + "."
	}
	return msg
}
