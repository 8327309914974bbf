package ctl

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"kplane/pkg/debug"
)

// tracePrinter prints the records `ctl trace` keeps, one line each: a
// table whose columns have fixed widths (the trace is printed as it
// happens, so no later row can widen a column, as with `kubectl get -w`),
// or with -o json one Record per line, for tests and tools.
type tracePrinter struct {
	out  io.Writer
	json bool
	// kinds turns a resource ("deployments.apps") into the name kubectl
	// prints for its objects ("deployment.apps").
	kinds map[string]string
	// namespace is left out of the OBJECT column: the followed objects
	// share it.
	namespace string
	// start is the time of the first record printed; TIME is the offset
	// from it.
	start         time.Time
	headerWritten bool
}

// traceColumns are the table's columns and their widths (the last one,
// DETAIL, takes the rest of the line).
var traceColumns = []struct {
	name  string
	width int
}{
	{"TIME", 9}, {"COMPONENT", 18}, {"STAGE", 8}, {"ACTOR", 30}, {"OBJECT", 34}, {"RV", 6}, {"DETAIL", 0},
}

// print writes one record.
func (p *tracePrinter) print(r *debug.Record) error {
	if p.json {
		data, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("encode record: %w", err)
		}
		_, err = p.out.Write(append(data, '\n'))
		return err
	}
	if !p.headerWritten {
		p.headerWritten = true
		p.start = r.Time
		names := make([]string, len(traceColumns))
		for i, c := range traceColumns {
			names[i] = c.name
		}
		if err := p.row(names); err != nil {
			return err
		}
	}
	if err := p.row([]string{
		formatOffset(r.Time.Sub(p.start)), r.Component, recordStage(r), orDash(r.Actor),
		p.objectName(r), orDash(r.ResourceVersion), recordDetail(r),
	}); err != nil {
		return err
	}
	// A decision's further rows (the scheduler's table of nodes) go under
	// its DETAIL column.
	indent := 0
	for _, c := range traceColumns[:len(traceColumns)-1] {
		indent += c.width + 2
	}
	for _, line := range r.Lines {
		if _, err := fmt.Fprintf(p.out, "%*s%s\n", indent, "", line); err != nil {
			return err
		}
	}
	return nil
}

// row writes cells padded to the columns' widths.
func (p *tracePrinter) row(cells []string) error {
	var b strings.Builder
	for i, cell := range cells {
		width := traceColumns[i].width
		if width == 0 {
			b.WriteString(cell)
			break
		}
		fmt.Fprintf(&b, "%-*s  ", width, cell)
	}
	_, err := fmt.Fprintln(p.out, strings.TrimRight(b.String(), " "))
	return err
}

// objectName is the OBJECT cell: "deployment.apps/web", "pod/web-5d8-x7k2p",
// with the namespace only when it is not the trace's.
func (p *tracePrinter) objectName(r *debug.Record) string {
	kind, ok := p.kinds[r.Resource]
	if !ok {
		kind = r.Resource
	}
	name := r.Key
	if ns, n, found := strings.Cut(r.Key, "/"); found && ns == p.namespace {
		name = n
	}
	if kind == "" {
		return name
	}
	return kind + "/" + name
}

// recordStage is the STAGE cell: the record's stage, or "decision" for a
// decision (which has none).
func recordStage(r *debug.Record) string {
	if r.Stage == "" {
		return r.Type
	}
	return r.Stage
}

// recordDetail is the DETAIL cell: the message in words first, then the
// name=value pairs, less the queue= or handler= pair the ACTOR column
// already shows.
func recordDetail(r *debug.Record) string {
	var pairs []string
	for _, pair := range strings.Fields(r.Detail) {
		name, value, _ := strings.Cut(pair, "=")
		if (name == "queue" || name == "handler") && value == r.Actor {
			continue
		}
		pairs = append(pairs, pair)
	}
	detail := strings.Join(pairs, " ")
	switch {
	case r.Message == "":
		return detail
	case detail == "":
		return r.Message
	}
	return r.Message + "  " + detail
}

// formatOffset prints d as "+1.234s" ("-0.002s" for a record that came
// later than the reorder window allowed and is dated before the first).
func formatOffset(d time.Duration) string {
	if d < 0 {
		return fmt.Sprintf("%.3fs", d.Seconds())
	}
	return fmt.Sprintf("+%.3fs", d.Seconds())
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
