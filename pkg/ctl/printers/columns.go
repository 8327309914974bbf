package printers

import (
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// kubectl aligns its tables with a tabwriter set to minwidth 6, padding 3
// and the RememberWidths flag (printers.GetNewTabWriter). A tabwriter sees
// a row as cells each ended by a tab, and a last cell that is not; it
// aligns a column over a block — a run of consecutive rows that all have
// that column before their last cell — making it as wide as the block's
// widest cell plus three spaces, and at least six. The last cell of a row
// is never padded. Every row of a Table has the same columns, so a block
// is normally the whole table; only a tab inside a cell (which ends the
// cell there) gives a row more cells than its neighbours.
//
// RememberWidths makes a column keep the widest width it has had, block
// after block and flush after flush. That is what keeps `get -w` rows
// lined up with the header printed before them — even though each watch
// event is flushed on its own, a row can only ever widen a column, never
// narrow it.
const (
	minColumnWidth = 6
	columnPadding  = 3
)

// columnWriter collects rows of cells and writes them aligned on Flush.
type columnWriter struct {
	out io.Writer
	// rows waiting for the next Flush.
	rows [][]string
	// widths are the column widths remembered from earlier blocks and
	// flushes: widths[j] is the widest column j has been.
	widths []int
}

// newColumnWriter returns a writer to out with no remembered widths.
func newColumnWriter(out io.Writer) *columnWriter {
	return &columnWriter{out: out}
}

// Row queues one row. A tab inside a cell ends that cell and starts
// another, as it does in the tabwriter kubectl prints through: a MESSAGE
// "a\tb" takes two columns of its row.
func (c *columnWriter) Row(cells []string) {
	if slices.ContainsFunc(cells, func(cell string) bool { return strings.Contains(cell, "\t") }) {
		var split []string
		for _, cell := range cells {
			split = append(split, strings.Split(cell, "\t")...)
		}
		cells = split
	}
	c.rows = append(c.rows, cells)
}

// Flush writes the queued rows, each cell but a row's last padded to the
// width of its column's block.
func (c *columnWriter) Flush() error {
	if len(c.rows) == 0 {
		return nil
	}
	widths := c.cellWidths()
	var b strings.Builder
	for r, row := range c.rows {
		for i, cell := range row {
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[r][i]-utf8.RuneCountInString(cell)))
			}
		}
		b.WriteByte('\n')
	}
	c.rows = c.rows[:0]
	_, err := io.WriteString(c.out, b.String())
	return err
}

// cellWidths returns, for each queued row, the width each of its cells
// but the last is padded to: the width of the cell's column in its block,
// or the column's remembered width if that is wider. Blocks are measured
// in row order, so that a width remembered from one block widens the
// blocks below it, as in kubectl's tabwriter.
func (c *columnWriter) cellWidths() [][]int {
	widths := make([][]int, len(c.rows))
	columns := 0
	for r, row := range c.rows {
		widths[r] = make([]int, max(len(row)-1, 0))
		columns = max(columns, len(widths[r]))
	}
	for column := range columns {
		for start := 0; start < len(c.rows); {
			if column >= len(widths[start]) {
				start++
				continue
			}
			end, width := start, minColumnWidth
			for ; end < len(c.rows) && column < len(widths[end]); end++ {
				width = max(width, utf8.RuneCountInString(c.rows[end][column])+columnPadding)
			}
			width = c.remember(column, width)
			for r := start; r < end; r++ {
				widths[r][column] = width
			}
			start = end
		}
	}
	return widths
}

// remember widens the remembered width of column to width, if it is
// narrower, and returns the remembered width.
func (c *columnWriter) remember(column, width int) int {
	for len(c.widths) <= column {
		c.widths = append(c.widths, 0)
	}
	c.widths[column] = max(c.widths[column], width)
	return c.widths[column]
}
