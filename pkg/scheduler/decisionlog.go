package scheduler

import (
	"fmt"
	"log/slog"
	"strings"

	"kplane/pkg/scheduler/framework"
)

// decision records one scheduling cycle for the decision log (--v=4): the
// filter verdict on every node looked at, each plugin's score on each
// feasible node, and the choice. It is filled while the cache is locked
// and logged after, so a slow log sink does not hold up the informers.
//
// A pod a PreFilter plugin rejects gets no filter lines, only
//
//	msg=prefilter pod=default/db result=UnschedulableAndUnresolvable plugin=VolumeBinding reasons="pod has unbound immediate PersistentVolumeClaims"
//
// The log reads, for a pod placed on node2 of three nodes:
//
//	msg=filter pod=default/web node=node1 result=Unschedulable plugin=NodeResourcesFit reasons="Insufficient cpu"
//	msg=filter pod=default/web node=node2 result=Success
//	msg=filter pod=default/web node=node3 result=Success
//	msg=score pod=default/web node=node2 total=488 scores="TaintToleration=100x3 NodeAffinity=0x2 NodeResourcesFit=90x1 NodeResourcesBalancedAllocation=98x1"
//	msg=score pod=default/web node=node3 total=482 scores="…"
//	msg=decision pod=default/web node=node2 feasible=2 evaluated=3 nodes=3
type decision struct {
	pod      string
	allNodes int
	// preFilter is the PreFilter rejection, if there was one.
	preFilter *framework.Status
	filters   []filterVerdict
	// scores[p][i] is plugin p's normalized score for feasible node i.
	plugins []pluginScores
	nodes   []string
	totals  []int64
}

type filterVerdict struct {
	node   string
	status *framework.Status
}

type pluginScores struct {
	name   string
	weight int64
	scores []int64
}

func (d *decision) filtered(node string, st *framework.Status) {
	d.filters = append(d.filters, filterVerdict{node: node, status: st})
}

func (d *decision) scored(plugin string, weight int64, nodes []*framework.NodeInfo, scores []int64) {
	if d.nodes == nil {
		for _, n := range nodes {
			d.nodes = append(d.nodes, n.Name())
		}
	}
	d.plugins = append(d.plugins, pluginScores{name: plugin, weight: weight, scores: append([]int64(nil), scores...)})
}

// log writes the decision, one line per node and one for the outcome.
func (d *decision) log(logger *slog.Logger, result scheduleResult, err error) {
	if st := d.preFilter; st != nil {
		logger.Info("prefilter", "pod", d.pod, "result", st.Code().String(), "plugin", st.Plugin(), "reasons", st.Message())
	}
	for _, f := range d.filters {
		if f.status.IsSuccess() {
			logger.Info("filter", "pod", d.pod, "node", f.node, "result", framework.Success.String())
			continue
		}
		logger.Info("filter", "pod", d.pod, "node", f.node, "result", f.status.Code().String(),
			"plugin", f.status.Plugin(), "reasons", f.status.Message())
	}
	for i, node := range d.nodes {
		parts := make([]string, 0, len(d.plugins))
		for _, p := range d.plugins {
			parts = append(parts, fmt.Sprintf("%s=%dx%d", p.name, p.scores[i], p.weight))
		}
		logger.Info("score", "pod", d.pod, "node", node, "total", d.totals[i], "scores", strings.Join(parts, " "))
	}
	switch {
	case err != nil:
		logger.Info("decision", "pod", d.pod, "result", "unschedulable", "message", err.Error())
	case d.nodes == nil:
		logger.Info("decision", "pod", d.pod, "node", result.node, "feasible", result.feasible,
			"evaluated", result.evaluated, "nodes", d.allNodes, "note", "one feasible node, scoring skipped")
	default:
		logger.Info("decision", "pod", d.pod, "node", result.node, "feasible", result.feasible,
			"evaluated", result.evaluated, "nodes", d.allNodes)
	}
}
