// Package printers writes what `ctl get` and the other verbs print: the
// server's Tables laid out as kubectl lays them out, and objects as YAML,
// JSON, names or JSONPath.
//
// The columns of a table are not defined here. The apiserver renders every
// kind's columns (pkg/apiserver/printers) when asked with `Accept:
// application/json;as=Table;v=v1;g=meta.k8s.io`, as upstream does; ctl only
// decorates them the way kubectl does — a NAMESPACE column for -A, a
// "kind/" prefix on names when several kinds are listed, LABELS for
// --show-labels, the priority>0 columns for -o wide — and aligns them.
//
// TablePrinter is kplane's one renderer of a Table as text. The
// apiserver's golden files (pkg/apiserver/printers/testdata) are printed
// by it as well, so what they show is what a user of `ctl get` sees.
package printers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// TableAccept is the Accept header that asks the apiserver for a Table
// (with JSON as the fallback, as kubectl sends it).
const TableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

// DecodeTable decodes a meta.k8s.io/v1 Table as the apiserver sends it.
// Numbers in cells are kept as written (json.Number), so a count prints
// as the server wrote it rather than through a float64; a row's object
// (PartialObjectMetadata, or the whole object with includeObject=Object)
// becomes a JSON document, a map.
func DecodeTable(data []byte) (*api.Table, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var t api.Table
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("decode table: %w", err)
	}
	return &t, nil
}

// rowMetadata reads the namespace and labels of a row's object, from
// which the NAMESPACE, LABELS and -L columns come. A Table decoded from
// the server holds the object as a JSON document; one built inside ctl
// (`ctl events`) holds a typed object. A row without an object prints
// empty cells.
func rowMetadata(object any) (namespace string, labels map[string]string) {
	switch o := object.(type) {
	case interface{ GetObjectMeta() *api.ObjectMeta }:
		meta := o.GetObjectMeta()
		return meta.Namespace, meta.Labels
	case map[string]any:
		meta, _ := o["metadata"].(map[string]any)
		namespace, _ = meta["namespace"].(string)
		values, _ := meta["labels"].(map[string]any)
		if len(values) > 0 {
			labels = make(map[string]string, len(values))
			for k, v := range values {
				labels[k], _ = v.(string)
			}
		}
		return namespace, labels
	}
	return "", nil
}

// TableOptions are the decorations kubectl adds to a server's table.
type TableOptions struct {
	// Wide shows the columns of priority above 0 (-o wide).
	Wide bool
	// NoHeaders leaves the header row out (--no-headers).
	NoHeaders bool
	// WithNamespace prepends a NAMESPACE column (-A).
	WithNamespace bool
	// KindPrefix, when set, is written before each name with a slash
	// ("deployment.apps/ng-dep"): kubectl does so when a command lists more
	// than one kind.
	KindPrefix string
	// ShowLabels appends a LABELS column (--show-labels).
	ShowLabels bool
	// LabelColumns appends one column per label key (-L key).
	LabelColumns []string
}

// TablePrinter writes tables to one output. Like kubectl's
// HumanReadablePrinter it prints the header only when the columns change,
// so a watch that sends one single-row Table per event prints one header;
// and it remembers column widths across flushes (see columnWriter).
type TablePrinter struct {
	opts        TableOptions
	out         *columnWriter
	lastColumns []api.TableColumnDefinition
	printedHead bool
}

// NewTablePrinter returns a printer writing to w.
func NewTablePrinter(w io.Writer, opts TableOptions) *TablePrinter {
	return &TablePrinter{opts: opts, out: newColumnWriter(w)}
}

// PrintTable queues the rows of t (and the header, if these columns have
// not had one yet). eventType, when not empty, fills an EVENT column
// before the others (`get -w --output-watch-events`). Call Flush to write.
func (p *TablePrinter) PrintTable(t *api.Table, eventType string) {
	columns := t.ColumnDefinitions
	if len(columns) == 0 {
		// Watch events after the first carry rows only.
		columns = p.lastColumns
	} else if !reflect.DeepEqual(columns, p.lastColumns) {
		p.lastColumns = columns
		p.printedHead = false
	}
	if len(t.Rows) == 0 {
		return
	}
	header, rows := decorate(columns, t.Rows, p.opts, eventType)
	if !p.opts.NoHeaders && !p.printedHead {
		p.out.Row(header)
	}
	p.printedHead = true
	for _, row := range rows {
		p.out.Row(row)
	}
}

// Flush writes the queued rows, aligned.
func (p *TablePrinter) Flush() error { return p.out.Flush() }

// decorate returns the header and the rows as text, with the visible
// columns and kubectl's extra columns.
func decorate(columns []api.TableColumnDefinition, rows []api.TableRow, opts TableOptions, eventType string) ([]string, [][]string) {
	var header []string
	if eventType != "" {
		header = append(header, "EVENT")
	}
	if opts.WithNamespace {
		header = append(header, "NAMESPACE")
	}
	nameColumn := -1
	for i, c := range columns {
		if c.Priority != 0 && !opts.Wide {
			continue
		}
		if nameColumn < 0 && c.Format == "name" && c.Type == "string" {
			nameColumn = i
		}
		header = append(header, strings.ToUpper(c.Name))
	}
	for _, key := range opts.LabelColumns {
		header = append(header, labelHeader(key))
	}
	if opts.ShowLabels {
		header = append(header, "LABELS")
	}

	out := make([][]string, 0, len(rows))
	for _, row := range rows {
		namespace, labels := rowMetadata(row.Object)
		var cells []string
		if eventType != "" {
			cells = append(cells, eventType)
		}
		if opts.WithNamespace {
			cells = append(cells, namespace)
		}
		for i, c := range columns {
			if c.Priority != 0 && !opts.Wide {
				continue
			}
			var text string
			if i < len(row.Cells) {
				text = cellText(row.Cells[i])
			}
			if i == nameColumn && opts.KindPrefix != "" {
				text = opts.KindPrefix + "/" + text
			}
			cells = append(cells, text)
		}
		for _, key := range opts.LabelColumns {
			cells = append(cells, labels[key])
		}
		if opts.ShowLabels {
			cells = append(cells, FormatLabels(labels))
		}
		out = append(out, cells)
	}
	return header, out
}

// cellText prints a cell as kubectl does: nothing for null, the text of
// anything else, cut at the first line break with "..." after it, and the
// escape character shown as "^[", so that a cell cannot send control
// sequences to the terminal (kubectl's WriteEscaped).
func cellText(cell any) string {
	if cell == nil {
		return ""
	}
	text, ok := cell.(string)
	if !ok {
		text = fmt.Sprint(cell)
	}
	if i := strings.IndexAny(text, "\f\n\r"); i >= 0 {
		text = text[:i] + "..."
	}
	return strings.ReplaceAll(text, "\x1b", "^[")
}

// labelHeader is the header of a -L column: the key's last path segment,
// uppercased ("app.kubernetes.io/name" → "NAME"), as kubectl prints it.
func labelHeader(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		key = key[i+1:]
	}
	return strings.ToUpper(key)
}

// FormatLabels renders labels as kubectl's LABELS column does: "k=v"
// pairs sorted by key and joined by commas, or "<none>".
func FormatLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return "<none>"
	}
	pairs := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		pairs = append(pairs, k+"="+labels[k])
	}
	return strings.Join(pairs, ",")
}
