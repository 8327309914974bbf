package printers

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"kplane/pkg/api"
)

// kubectl's tabwriter settings (cli-runtime's GetNewTabWriter): a column is
// at least 6 wide and columns are 3 spaces apart.
const (
	tabMinWidth = 6
	tabWidth    = 4
	tabPadding  = 3
)

// PrintTable writes t as aligned text columns, the way `kubectl get` prints a
// server-side Table: upper-case headers, cells padded with spaces, columns of
// priority above 0 only when wide is set (`-o wide`). A table with no rows
// prints nothing, so the caller can say "No resources found" instead.
func PrintTable(w io.Writer, t *api.Table, wide bool) error {
	if len(t.Rows) == 0 {
		return nil
	}
	shown := make([]bool, len(t.ColumnDefinitions))
	var header []string
	for i, c := range t.ColumnDefinitions {
		shown[i] = wide || c.Priority == 0
		if shown[i] {
			header = append(header, strings.ToUpper(c.Name))
		}
	}

	tw := tabwriter.NewWriter(w, tabMinWidth, tabWidth, tabPadding, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, row := range t.Rows {
		var cells []string
		for i, cell := range row.Cells {
			if i < len(shown) && shown[i] {
				cells = append(cells, formatCell(cell))
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("print table: %w", err)
	}
	return nil
}

// formatCell renders one cell as kubectl does: strings up to their first
// line break (marked with "..."), numbers as integers when they are whole —
// a table that went through JSON holds every number as a float64 — and
// anything else with fmt's default format.
func formatCell(cell any) string {
	switch v := cell.(type) {
	case nil:
		return ""
	case string:
		if i := strings.IndexAny(v, "\f\n\r"); i >= 0 {
			return strings.ReplaceAll(v[:i], "\t", " ") + "..."
		}
		// A tab would start a new column.
		return strings.ReplaceAll(v, "\t", " ")
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Sprint(v)
	}
}
