package printers

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"kplane/pkg/ctl/jsonpath"
)

// CustomColumns is the printer of `-o custom-columns=NAME:.metadata.name,…`
// and `-o custom-columns-file=F`: a table whose columns the user names,
// each cell the values a field path reaches in the object.
type CustomColumns struct {
	headers []string
	paths   []*jsonpath.Template
	// NoHeaders leaves the header row out (--no-headers).
	NoHeaders bool
}

// ParseCustomColumns reads a spec of comma-separated HEADER:path pairs.
// Paths may leave out the braces and the leading dot (metadata.name).
func ParseCustomColumns(spec string) (*CustomColumns, error) {
	if spec == "" {
		return nil, fmt.Errorf("custom-columns format specified but no custom columns given")
	}
	c := &CustomColumns{}
	for _, part := range strings.Split(spec, ",") {
		header, path, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("unexpected custom-columns spec: %s, expected <header>:<json-path-expr>", part)
		}
		if err := c.add(header, path); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// ParseCustomColumnsFile reads the file form: a line of headers and a line
// of paths, both separated by spaces.
func ParseCustomColumnsFile(r io.Reader) (*CustomColumns, error) {
	scanner := bufio.NewScanner(r)
	const format = "Expected format is one line of space separated headers, one line of space separated column specs."
	if !scanner.Scan() {
		return nil, fmt.Errorf("invalid template, missing header line. %s", format)
	}
	headers := strings.Fields(scanner.Text())
	if !scanner.Scan() {
		return nil, fmt.Errorf("invalid template, missing spec line. %s", format)
	}
	paths := strings.Fields(scanner.Text())
	if len(headers) != len(paths) {
		return nil, fmt.Errorf("number of headers (%d) and field specifications (%d) don't match", len(headers), len(paths))
	}
	c := &CustomColumns{}
	for i := range headers {
		if err := c.add(headers[i], paths[i]); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// add appends one column.
func (c *CustomColumns) add(header, path string) error {
	expr, err := jsonpath.Relaxed(path)
	if err != nil {
		return err
	}
	tmpl, err := jsonpath.Parse(expr)
	if err != nil {
		return err
	}
	c.headers = append(c.headers, header)
	c.paths = append(c.paths, tmpl)
	return nil
}

// Print writes the header and one row per object, aligned as kubectl's
// tables are.
func (c *CustomColumns) Print(w io.Writer, objects []map[string]any) error {
	out := newColumnWriter(w)
	if !c.NoHeaders {
		out.Row(c.headers)
	}
	for _, obj := range objects {
		row := make([]string, len(c.paths))
		for i, path := range c.paths {
			cell, err := customCell(path, obj)
			if err != nil {
				return err
			}
			row[i] = cell
		}
		out.Row(row)
	}
	return out.Flush()
}

// customCell is one cell: every value the path reaches, printed with Go's
// default formatting (maps as map[k:v], as kubectl prints them) and joined
// by commas, or <none> when the path reaches nothing.
func customCell(path *jsonpath.Template, obj map[string]any) (string, error) {
	results, err := path.Results(obj)
	if err != nil {
		return "", err
	}
	var values []string
	for _, found := range results {
		for _, v := range found {
			values = append(values, escapeTerminal(fmt.Sprint(v)))
		}
	}
	if len(values) == 0 {
		return "<none>", nil
	}
	return strings.Join(values, ","), nil
}

// terminalEscaper keeps values from moving the terminal's cursor.
var terminalEscaper = strings.NewReplacer("\x1b", "^[", "\r", "\\r")

// escapeTerminal makes escape sequences and carriage returns visible.
func escapeTerminal(s string) string { return terminalEscaper.Replace(s) }
