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
	"kplane/pkg/debug/trace"
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
	return trace.ScoreTerms(d.scores(i), sep)
}

// scores are feasible node i's terms, in plugin order.
func (d *decision) scores(i int) []trace.NodeScore {
	scores := make([]trace.NodeScore, len(d.plugins))
	for p, plugin := range d.plugins {
		scores[p] = trace.NodeScore{Plugin: plugin.name, Score: plugin.scores[i], Weight: plugin.weight}
	}
	return scores
}

// values are the outcome's numbers by name; "total/<node>" is each scored
// node's weighted sum, when there are at most maxTableRows of them.
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
		if len(d.nodes) <= maxTableRows {
			v["total/"+node] = strconv.FormatInt(d.totals[i], 10)
		}
		if node == result.node && err == nil {
			v["total"] = strconv.FormatInt(d.totals[i], 10)
		}
	}
	return v
}

// maxTableRows bounds the per-node table of one record. A journal keeps
// thousands of records, and a full table of a 100-node cluster would make
// each some 15 KB; past this many nodes the table shows the chosen node,
// the best-scored feasible ones and the first rejected ones, and sums up
// the others in a line each.
const maxTableRows = 20

// tableRow is one node of the table: rejected by a filter (status), or
// feasible with its scores at index score of d.nodes (-1: not scored).
type tableRow struct {
	node   string
	status *framework.Status
	score  int
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
	shown, omitted := d.tableRows(result)
	for _, r := range shown {
		out = append(out, d.rowLine(r, result))
	}
	out = append(out, omitted...)
	for _, f := range d.filters {
		if !f.status.IsSuccess() {
			cited[f.status.Plugin()] = true
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

// tableRows returns the rows to show, by node name, and the lines that
// sum up the rows left out (see maxTableRows).
func (d *decision) tableRows(result scheduleResult) (shown []tableRow, omitted []string) {
	scoreIndex := make(map[string]int, len(d.nodes))
	for i, n := range d.nodes {
		scoreIndex[n] = i
	}
	var feasible, rejected []tableRow
	for _, f := range d.filters {
		if !f.status.IsSuccess() {
			rejected = append(rejected, tableRow{node: f.node, status: f.status, score: -1})
			continue
		}
		i, ok := scoreIndex[f.node]
		if !ok {
			i = -1
		}
		feasible = append(feasible, tableRow{node: f.node, score: i})
	}
	byName := func(a, b tableRow) int { return strings.Compare(a.node, b.node) }
	if len(feasible)+len(rejected) <= maxTableRows {
		shown = append(feasible, rejected...)
		slices.SortFunc(shown, byName)
		return shown, nil
	}

	// The chosen node first, then the best totals (by name among equals).
	rank := func(r tableRow) (bool, int64) {
		if r.score < 0 {
			return r.node == result.node, -1
		}
		return r.node == result.node, d.totals[r.score]
	}
	slices.SortFunc(feasible, func(a, b tableRow) int {
		chosenA, totalA := rank(a)
		chosenB, totalB := rank(b)
		switch {
		case chosenA != chosenB:
			if chosenA {
				return -1
			}
			return 1
		case totalA != totalB:
			if totalA > totalB {
				return -1
			}
			return 1
		}
		return byName(a, b)
	})
	slices.SortFunc(rejected, byName)
	keepFeasible := min(len(feasible), max(maxTableRows/2, maxTableRows-len(rejected)))
	keepRejected := min(len(rejected), maxTableRows-keepFeasible)
	shown = append(slices.Clone(feasible[:keepFeasible]), rejected[:keepRejected]...)
	slices.SortFunc(shown, byName)

	if rest := feasible[keepFeasible:]; len(rest) > 0 {
		line := fmt.Sprintf("… %d more feasible nodes not shown", len(rest))
		if _, best := rank(rest[0]); best >= 0 {
			_, worst := rank(rest[len(rest)-1])
			line += fmt.Sprintf(", totals %d down to %d", best, worst)
		}
		omitted = append(omitted, line)
	}
	if rest := rejected[keepRejected:]; len(rest) > 0 {
		counts := map[string]int{}
		for _, r := range rest {
			counts[r.status.Plugin()+" ("+r.status.Message()+")"]++
		}
		var parts []string
		for _, why := range slices.Sorted(maps.Keys(counts)) {
			parts = append(parts, fmt.Sprintf("%d by %s", counts[why], why))
		}
		omitted = append(omitted, fmt.Sprintf("… %d more nodes filtered out not shown: %s", len(rest), strings.Join(parts, ", ")))
	}
	return shown, omitted
}

// rowLine prints one row of the table, in the format `ctl why` and the
// web view read back (trace.NodeRow).
func (d *decision) rowLine(r tableRow, result scheduleResult) string {
	row := trace.NodeRow{Node: r.node, Feasible: r.status == nil, Chosen: r.node == result.node}
	switch {
	case r.status != nil:
		row.FilteredBy, row.Reason, row.Chosen = r.status.Plugin(), r.status.Message(), false
	case r.score < 0 && row.Chosen:
		row.Note = "the only feasible node: not scored"
	case r.score < 0:
		row.Chosen = false
	default:
		row.Scores, row.Total = d.scores(r.score), d.totals[r.score]
	}
	return row.Line()
}
