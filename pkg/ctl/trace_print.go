package ctl

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"kplane/pkg/debug"
	"kplane/pkg/debug/trace"
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
		formatOffset(r.Time.Sub(p.start)), r.Component, trace.Stage(r), orDash(r.Actor),
		trace.ObjectName(r, p.kinds, p.namespace), orDash(r.ResourceVersion), trace.Detail(r),
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
