package robustness

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Report prints what the run did and found: the operations by kind and
// outcome, how many unknown writes took effect, the faults by kind, what
// the watchers saw, and every anomaly with its detail.
func (r *Result) Report(out io.Writer) {
	fmt.Fprintf(out, "robustness run: %d operations in %v (%.0f/s), %v in all; etcd history: %d changes up to revision %d\n\n",
		len(r.Operations), r.TrafficTime.Round(time.Millisecond), float64(len(r.Operations))/r.TrafficTime.Seconds(),
		r.Total.Round(time.Millisecond), len(r.History.Events), r.History.LastRevision)

	type cell struct {
		kind    OpKind
		outcome Outcome
	}
	counts := map[cell]int{}
	unknownApplied := 0
	applied := map[string]bool{}
	for _, ev := range r.History.Events {
		if ev.Type == Put {
			applied[ev.Value] = true
		}
	}
	for _, op := range r.Operations {
		counts[cell{op.Kind, op.Outcome}]++
		if op.Outcome == Unknown && op.Value != "" && applied[op.Value] {
			unknownApplied++
		}
	}
	w := tabwriter.NewWriter(out, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "OPERATION\tACKNOWLEDGED\tREFUSED\tUNKNOWN\tTOTAL\t")
	for _, kind := range []OpKind{OpCreate, OpUpdate, OpPatch, OpDelete, OpList} {
		a, rf, u := counts[cell{kind, Acknowledged}], counts[cell{kind, Refused}], counts[cell{kind, Unknown}]
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t\n", kind, a, rf, u, a+rf+u)
	}
	w.Flush()
	fmt.Fprintf(out, "writes with an unknown outcome that took effect: %d\n", unknownApplied)
	flavors := map[string][2]int{} // acknowledged, refused
	pages := 0
	for _, op := range r.Operations {
		if op.Kind != OpList {
			continue
		}
		flavor := "consistent"
		switch {
		case op.ListMatch != "":
			flavor = op.ListMatch
		case op.ListResourceVersion == "0":
			flavor = "resourceVersion=0"
		case op.Pages > 1 || strings.Contains(op.Err, "continue"):
			flavor = "paginated"
		}
		c := flavors[flavor]
		switch op.Outcome {
		case Acknowledged:
			c[0]++
			if op.Pages > 1 {
				pages += op.Pages
			}
		case Refused:
			c[1]++
		}
		flavors[flavor] = c
	}
	fmt.Fprint(out, "lists acknowledged (refused):")
	for _, f := range []string{"consistent", "resourceVersion=0", "NotOlderThan", "Exact", "paginated"} {
		fmt.Fprintf(out, " %s %d (%d),", f, flavors[f][0], flavors[f][1])
	}
	fmt.Fprintf(out, " %d pages read by paginated lists\n\n", pages)

	fmt.Fprintln(out, "faults injected:")
	for _, kind := range AllFaults {
		fmt.Fprintf(out, "  %-32s %d\n", kind, r.Faults[kind])
	}
	for _, f := range r.FaultFailures {
		fmt.Fprintf(out, "  FAILED: %s\n", f)
	}

	var events, bookmarks, gone, lists, resumed int
	for _, wr := range r.Watchers {
		for _, o := range wr.Observations {
			switch o.Kind {
			case ObservedEvent:
				events++
			case ObservedBookmark:
				bookmarks++
			case ObservedGone:
				gone++
			case ObservedList:
				lists++
			case ObservedWatchStart:
				resumed++
			}
		}
	}
	fmt.Fprintf(out, "\nwatchers: %d; %d events, %d bookmarks, %d watches started or resumed, %d answered 410 Gone, %d lists\n",
		len(r.Watchers), events, bookmarks, resumed, gone, lists)

	fmt.Fprintf(out, "\nanomalies found: %d\n", len(r.Anomalies))
	sorted := slices.Clone(r.Anomalies)
	slices.SortStableFunc(sorted, func(a, b Anomaly) int {
		if a.Kind < b.Kind {
			return -1
		}
		if a.Kind > b.Kind {
			return 1
		}
		return 0
	})
	for i, a := range sorted {
		if i == 50 {
			fmt.Fprintf(out, "  … and %d more\n", len(sorted)-50)
			break
		}
		fmt.Fprintf(out, "  %s\n", a)
	}
}
