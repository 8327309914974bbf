package describe

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"
)

// The nesting levels of a description; each level indents two spaces.
// Upstream names them LEVEL_0 … LEVEL_4.
const (
	level0 = iota
	level1
	level2
	level3
	level4
)

// prefixWriter writes lines at a nesting level into a tabwriter, as
// upstream's PrefixWriter does. A tab separates a label from its value;
// the tabwriter aligns the values of consecutive labelled lines.
type prefixWriter interface {
	// write formats a line (or part of one) indented by level.
	write(level int, format string, args ...any)
	// writeLine ends the current line with args, unindented, as
	// fmt.Sprintln formats them.
	writeLine(args ...any)
}

// levelWriter is the prefixWriter over the output.
type levelWriter struct {
	out *tabwriter.Writer
}

func (w *levelWriter) write(level int, format string, args ...any) {
	text := strings.Repeat("  ", level) + fmt.Sprintf(format, args...)
	w.out.Write([]byte(escapeTerminal(text)))
}

func (w *levelWriter) writeLine(args ...any) {
	w.out.Write([]byte(escapeTerminal(fmt.Sprintln(args...))))
}

// nestedWriter shifts everything written through it by indent levels; it
// lets a section written for the top level (a claim's fields) appear
// inside another (an ephemeral volume).
type nestedWriter struct {
	prefixWriter
	indent int
}

func (w *nestedWriter) write(level int, format string, args ...any) {
	w.prefixWriter.write(level+w.indent, format, args...)
}

func (w *nestedWriter) writeLine(args ...any) {
	w.prefixWriter.write(w.indent, "%s", fmt.Sprintln(args...))
}

// tabbedString runs render against a tabwriter with kubectl's describe
// settings (minwidth 0, tabwidth 8, padding 2, padded with spaces) and
// returns what it wrote.
func tabbedString(render func(w prefixWriter)) string {
	var buf bytes.Buffer
	out := tabwriter.NewWriter(&buf, 0, 8, 2, ' ', 0)
	render(&levelWriter{out: out})
	out.Flush()
	return buf.String()
}

// terminalEscaper neutralises the characters that could drive a terminal
// (ESC starts control sequences, CR rewrites a line), as kubectl's
// printers.WriteEscaped does with everything describe prints.
var terminalEscaper = strings.NewReplacer("\x1b", "^[", "\r", "\\r")

func escapeTerminal(s string) string { return terminalEscaper.Replace(s) }
