package printers

import (
	"io"
	"strings"
	"unicode/utf8"
)

// kubectl aligns its tables with a tabwriter set to minwidth 6, padding 3
// and the RememberWidths flag (printers.GetNewTabWriter): a column is as
// wide as its widest cell plus three spaces, at least six, and the last
// column is never padded. RememberWidths makes a column keep the widest
// width it has had after a flush, which is what keeps `get -w` rows lined
// up with the header printed before them — even though each watch event is
// flushed on its own, a row can only ever widen a column, never narrow it.
const (
	minColumnWidth = 6
	columnPadding  = 3
)

// columnWriter collects rows of cells and writes them aligned on Flush.
type columnWriter struct {
	out io.Writer
	// rows waiting for the next Flush.
	rows [][]string
	// widths are the column widths remembered from earlier flushes.
	widths []int
}

// newColumnWriter returns a writer to out with no remembered widths.
func newColumnWriter(out io.Writer) *columnWriter {
	return &columnWriter{out: out}
}

// Row queues one row.
func (c *columnWriter) Row(cells []string) {
	c.rows = append(c.rows, cells)
}

// Flush writes the queued rows. Each column is padded to the widest of its
// remembered width and its cells' width plus padding; the widths are then
// remembered for the next Flush.
func (c *columnWriter) Flush() error {
	if len(c.rows) == 0 {
		return nil
	}
	for _, row := range c.rows {
		for i, cell := range row[:max(len(row)-1, 0)] {
			w := max(utf8.RuneCountInString(cell)+columnPadding, minColumnWidth)
			if i >= len(c.widths) {
				c.widths = append(c.widths, w)
			} else if w > c.widths[i] {
				c.widths[i] = w
			}
		}
	}
	var b strings.Builder
	for _, row := range c.rows {
		for i, cell := range row {
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", c.widths[i]-utf8.RuneCountInString(cell)))
			}
		}
		b.WriteByte('\n')
	}
	c.rows = c.rows[:0]
	_, err := io.WriteString(c.out, b.String())
	return err
}

// Reset forgets the remembered widths, for a new table.
func (c *columnWriter) Reset() { c.widths = nil }
