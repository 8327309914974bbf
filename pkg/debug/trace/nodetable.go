package trace

import (
	"fmt"
	"strconv"
	"strings"
)

// NodeRow is one node's row of the scheduler's filter and score table:
// rejected by a filter plugin, or feasible with each score plugin's
// normalized score and weight. The scheduler writes each row of its
// decision record as Line prints it (pkg/scheduler/decisionrecord.go), and
// NodeTable reads the lines back, so the text and the table are one format
// kept in this file.
type NodeRow struct {
	// Node is the node's name.
	Node string `json:"node"`
	// Feasible is whether every filter plugin let the node through.
	Feasible bool `json:"feasible"`
	// FilteredBy and Reason are the filter plugin that rejected the node
	// and its words, for a node that is not feasible.
	FilteredBy string `json:"filteredBy,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Scores are a scored node's terms, in the scheduler's plugin order.
	Scores []NodeScore `json:"scores,omitempty"`
	// Total is the weighted sum of Scores (meaningful when Scores is set).
	Total int64 `json:"total"`
	// Chosen marks the node the pod was bound to.
	Chosen bool `json:"chosen"`
	// Note is what the row says besides ("the only feasible node: not
	// scored").
	Note string `json:"note,omitempty"`
}

// NodeScore is one score plugin's term of a node's total: Score × Weight.
type NodeScore struct {
	Plugin string `json:"plugin"`
	Score  int64  `json:"score"`
	Weight int64  `json:"weight"`
}

// Line is the row as the decision record's text has it:
//
//	node1: filtered out by TaintToleration: node(s) had untolerated taint {dedicated: db}
//	node2: feasible: TaintToleration 100×3 + NodeResourcesFit 90×1 = 390, chosen
//	node4: feasible, chosen (the only feasible node: not scored)
//	node5: feasible
func (r NodeRow) Line() string {
	switch {
	case !r.Feasible:
		return fmt.Sprintf("%s: filtered out by %s: %s", r.Node, r.FilteredBy, r.Reason)
	case r.Scores == nil && r.Chosen:
		return fmt.Sprintf("%s: feasible, chosen (%s)", r.Node, r.Note)
	case r.Scores == nil:
		return r.Node + ": feasible"
	}
	line := fmt.Sprintf("%s: feasible: %s = %d", r.Node, ScoreTerms(r.Scores, " + "), r.Total)
	if r.Chosen {
		line += ", chosen"
	}
	return line
}

// String is the term as the record prints it: "TaintToleration 100×3".
func (s NodeScore) String() string {
	return fmt.Sprintf("%s %d×%d", s.Plugin, s.Score, s.Weight)
}

// ScoreTerms joins a node's terms with sep.
func ScoreTerms(scores []NodeScore, sep string) string {
	parts := make([]string, len(scores))
	for i, s := range scores {
		parts[i] = s.String()
	}
	return strings.Join(parts, sep)
}

// NodeTable splits a scheduler decision's lines into the per-node rows and
// the other lines (a PreFilter rejection, the nodes not shown or not looked
// at, the upstream file of each plugin), each kept in its order.
func NodeTable(lines []string) (rows []NodeRow, notes []string) {
	for _, line := range lines {
		if row, ok := parseNodeRow(line); ok {
			rows = append(rows, row)
		} else {
			notes = append(notes, line)
		}
	}
	return rows, notes
}

// parseNodeRow reads one row line, the inverse of Line; ok is false for
// any other line. A node's
// name never holds a space, which tells a row ("node1: …") from a note
// ("PreFilter NodeAffinity: …").
func parseNodeRow(line string) (NodeRow, bool) {
	node, rest, found := strings.Cut(line, ": ")
	if !found || node == "" || strings.ContainsAny(node, " …") {
		return NodeRow{}, false
	}
	row := NodeRow{Node: node}
	switch {
	case strings.HasPrefix(rest, "filtered out by "):
		plugin, reason, _ := strings.Cut(strings.TrimPrefix(rest, "filtered out by "), ": ")
		row.FilteredBy, row.Reason = plugin, reason
		return row, true
	case rest == "feasible":
		row.Feasible = true
		return row, true
	case strings.HasPrefix(rest, "feasible, chosen"):
		row.Feasible, row.Chosen = true, true
		row.Note = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(rest, "feasible, chosen"), " ("), ")")
		return row, true
	case strings.HasPrefix(rest, "feasible: "):
		row.Feasible = true
		terms := strings.TrimPrefix(rest, "feasible: ")
		terms, row.Chosen = strings.CutSuffix(terms, ", chosen")
		sum, total, ok := strings.Cut(terms, " = ")
		if !ok {
			return NodeRow{}, false
		}
		var err error
		if row.Total, err = strconv.ParseInt(total, 10, 64); err != nil {
			return NodeRow{}, false
		}
		for _, term := range strings.Split(sum, " + ") {
			score, ok := parseScoreTerm(term)
			if !ok {
				return NodeRow{}, false
			}
			row.Scores = append(row.Scores, score)
		}
		return row, true
	}
	return NodeRow{}, false
}

// parseScoreTerm reads "TaintToleration 100×3", the inverse of
// NodeScore.String.
func parseScoreTerm(term string) (NodeScore, bool) {
	plugin, product, ok := strings.Cut(term, " ")
	if !ok {
		return NodeScore{}, false
	}
	score, weight, ok := strings.Cut(product, "×")
	if !ok {
		return NodeScore{}, false
	}
	s, err1 := strconv.ParseInt(score, 10, 64)
	w, err2 := strconv.ParseInt(weight, 10, 64)
	if err1 != nil || err2 != nil {
		return NodeScore{}, false
	}
	return NodeScore{Plugin: plugin, Score: s, Weight: w}, true
}
