package main

import (
	"fmt"
	"io"
	"strings"
)

// writeTable prints rows as a Markdown table, so that it reads in a terminal
// and pastes into docs/performance.md as it is.
func writeTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| Target | Median [min–max] | Runs | Beside it | Result |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n",
			cell(r.workload), cell(r.measured), cell(r.runs), cell(r.beside), r.verdict)
	}
}

// cell keeps a value from breaking the table's columns.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
