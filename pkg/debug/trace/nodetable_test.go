package trace

import (
	"reflect"
	"testing"
)

// The lines are the scheduler's own (pkg/scheduler/decisionrecord.go).
func TestNodeTableSplitsRowsFromNotes(t *testing.T) {
	lines := []string{
		"PreFilter NodeAffinity: node(s) didn't match (UnschedulableAndUnresolvable): no node was looked at",
		"node1: filtered out by TaintToleration: node(s) had untolerated taint {dedicated: db}",
		"node2: feasible: TaintToleration 100×3 + NodeResourcesFit 90×1 = 390, chosen",
		"node3: feasible: TaintToleration 100×3 + NodeResourcesFit 86×1 = 386",
		"node4: feasible, chosen (the only feasible node: not scored)",
		"node5: feasible",
		"… 3 more feasible nodes not shown, totals 380 down to 300",
		"plugin TaintToleration mirrors upstream pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go",
	}
	rows, notes := NodeTable(lines)
	want := []NodeRow{
		{Node: "node1", FilteredBy: "TaintToleration", Reason: "node(s) had untolerated taint {dedicated: db}"},
		{Node: "node2", Feasible: true, Chosen: true, Total: 390, Scores: []NodeScore{{"TaintToleration", 100, 3}, {"NodeResourcesFit", 90, 1}}},
		{Node: "node3", Feasible: true, Total: 386, Scores: []NodeScore{{"TaintToleration", 100, 3}, {"NodeResourcesFit", 86, 1}}},
		{Node: "node4", Feasible: true, Chosen: true, Note: "the only feasible node: not scored"},
		{Node: "node5", Feasible: true},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows:\n got %+v\nwant %+v", rows, want)
	}
	wantNotes := []string{lines[0], lines[6], lines[7]}
	if !reflect.DeepEqual(notes, wantNotes) {
		t.Errorf("notes:\n got %q\nwant %q", notes, wantNotes)
	}
}

func TestNodeTableKeepsAMalformedRowAsANote(t *testing.T) {
	rows, notes := NodeTable([]string{"node1: feasible: TaintToleration lots = 3"})
	if len(rows) != 0 || len(notes) != 1 {
		t.Errorf("got rows %+v notes %q, want the line as a note", rows, notes)
	}
}

// Line and NodeTable are one format: every kind of row reads back as
// written.
func TestNodeRowLineReadsBack(t *testing.T) {
	rows := []NodeRow{
		{Node: "node1", FilteredBy: "NodeResourcesFit", Reason: "Insufficient cpu"},
		{Node: "node2", Feasible: true, Chosen: true, Total: 390, Scores: []NodeScore{{"TaintToleration", 100, 3}, {"NodeResourcesFit", 90, 1}}},
		{Node: "node3", Feasible: true, Total: 0, Scores: []NodeScore{{"ImageLocality", 0, 1}}},
		{Node: "node4", Feasible: true, Chosen: true, Note: "the only feasible node: not scored"},
		{Node: "node5", Feasible: true},
	}
	for _, row := range rows {
		got, notes := NodeTable([]string{row.Line()})
		if len(notes) != 0 || len(got) != 1 || !reflect.DeepEqual(got[0], row) {
			t.Errorf("%q read back as rows %+v, notes %q; want %+v", row.Line(), got, notes, row)
		}
	}
}
