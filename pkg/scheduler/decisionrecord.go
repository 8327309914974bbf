package scheduler

// This file turns a scheduling cycle's decision (decisionlog.go gathers
// it) into the decision record `ctl why pod/NAME` prints: one record per
// attempt, its message the outcome and its lines the per-node table, e.g.
//
//	node2: TaintToleration 100×3, NodeAffinity 0×2, NodeResourcesFit 90×1, NodeResourcesBalancedAllocation 98×1 = 488, chosen of 2 feasible
//	  node1: filtered out by TaintToleration: node(s) had untolerated taint {dedicated: db}
//	  node2: feasible: TaintToleration 100×3 + NodeAffinity 0×2 + NodeResourcesFit 90×1 + NodeResourcesBalancedAllocation 98×1 = 488, chosen
//	  node3: feasible: TaintToleration 100×3 + NodeAffinity 0×2 + NodeResourcesFit 86×1 + NodeResourcesBalancedAllocation 96×1 = 482
//
// The same decision feeds the -v=4 log, so the two never disagree.

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/debug"
	"kplane/pkg/scheduler/framework"
	"kplane/pkg/scheduler/plugins"
)

// sourceScheduleOne is the upstream file of the scheduling cycle the
// records mirror; each plugin's own file is cited in the record's lines.
const sourceScheduleOne = "pkg/scheduler/schedule_one.go"

// record writes d into j as the scheduler's decision about pod.
func (d *decision) record(j *debug.Journal, pod *api.Pod, result scheduleResult, err error) {
	if !j.Enabled() {
		return
	}
	j.Decision(debug.Decision{
		Actor:           "scheduler",
		Resource:        "pods",
		Key:             d.pod,
		UID:             pod.UID,
		ResourceVersion: pod.ResourceVersion,
		Message:         d.message(result, err),
		Values:          d.values(result, err),
		Lines:           d.lines(result),
		Source:          sourceScheduleOne,
	})
}

// message is the outcome in one line: the chosen node with its score
// sum, or why no node fits (the FailedScheduling event's words).
func (d *decision) message(result scheduleResult, err error) string {
	switch {
	case err != nil:
		return err.Error()
	case d.nodes == nil:
		return fmt.Sprintf("%s: the only feasible node of %d, scoring skipped", result.node, d.allNodes)
	}
	i := slices.Index(d.nodes, result.node)
	message := fmt.Sprintf("%s: %s = %d, chosen of %d feasible", result.node, d.scoreTerms(i, ", "), d.totals[i], result.feasible)
	if tied := tiedWith(d.totals, i); tied > 1 {
		// selectHost picks uniformly among the best.
		message += fmt.Sprintf(" (%d tied at %d: picked at random)", tied, d.totals[i])
	}
	return message
}

// tiedWith counts the totals equal to totals[i], i included.
func tiedWith(totals []int64, i int) int {
	n := 0
	for _, t := range totals {
		if t == totals[i] {
			n++
		}
	}
	return n
}

// scoreTerms prints feasible node i's weighted scores, "TaintToleration
// 100×3" joined by sep.
func (d *decision) scoreTerms(i int, sep string) string {
	parts := make([]string, len(d.plugins))
	for p, plugin := range d.plugins {
		parts[p] = fmt.Sprintf("%s %d×%d", plugin.name, plugin.scores[i], plugin.weight)
	}
	return strings.Join(parts, sep)
}

// values are the outcome's numbers by name; "total/<node>" is each scored
// node's weighted sum.
func (d *decision) values(result scheduleResult, err error) map[string]string {
	v := map[string]string{
		"nodes":     strconv.Itoa(d.allNodes),
		"evaluated": strconv.Itoa(len(d.filters)),
		"feasible":  strconv.Itoa(result.feasible),
	}
	var fitErr *framework.FitError
	switch {
	case errors.As(err, &fitErr) || errors.Is(err, framework.ErrNoNodesAvailable):
		v["result"] = "unschedulable"
	case err != nil:
		v["result"] = "error"
	default:
		v["result"] = "scheduled"
		v["node"] = result.node
	}
	for i, node := range d.nodes {
		v["total/"+node] = strconv.FormatInt(d.totals[i], 10)
		if node == result.node && err == nil {
			v["total"] = strconv.FormatInt(d.totals[i], 10)
		}
	}
	return v
}

// lines is the per-node table, by node name: each node's filter verdict
// (feasible, or the plugin that rejected it and why) and, for a feasible
// node, every score plugin's normalized score × weight and the total.
// A PreFilter rejection, the nodes left unevaluated and the upstream file
// of every plugin that rejected or scored a node follow.
func (d *decision) lines(result scheduleResult) []string {
	var out []string
	if st := d.preFilter; st != nil {
		out = append(out, fmt.Sprintf("PreFilter %s: %s (%s): no node was looked at", st.Plugin(), st.Message(), st.Code()))
	}
	cited := map[string]bool{}
	filters := slices.Clone(d.filters)
	slices.SortFunc(filters, func(a, b filterVerdict) int { return strings.Compare(a.node, b.node) })
	for _, f := range filters {
		if !f.status.IsSuccess() {
			cited[f.status.Plugin()] = true
			out = append(out, fmt.Sprintf("%s: filtered out by %s: %s", f.node, f.status.Plugin(), f.status.Message()))
			continue
		}
		i := slices.Index(d.nodes, f.node)
		switch {
		case i < 0 && f.node == result.node:
			out = append(out, fmt.Sprintf("%s: feasible, chosen (the only feasible node: not scored)", f.node))
		case i < 0:
			out = append(out, f.node+": feasible")
		default:
			line := fmt.Sprintf("%s: feasible: %s = %d", f.node, d.scoreTerms(i, " + "), d.totals[i])
			if f.node == result.node {
				line += ", chosen"
			}
			out = append(out, line)
		}
	}
	if skipped := d.allNodes - len(d.filters); skipped > 0 && d.preFilter == nil {
		out = append(out, fmt.Sprintf("%d nodes not looked at: enough feasible nodes were found (numFeasibleNodesToFind)", skipped))
	}
	for _, p := range d.plugins {
		cited[p.name] = true
	}
	if d.preFilter != nil {
		cited[d.preFilter.Plugin()] = true
	}
	for _, name := range slices.Sorted(maps.Keys(cited)) {
		if src := plugins.UpstreamSource(name); src != "" {
			out = append(out, "plugin "+name+" mirrors upstream "+src)
		}
	}
	return out
}
