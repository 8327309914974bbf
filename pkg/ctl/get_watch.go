package ctl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/ctl/printers"
)

// runWatch is `ctl get -w`: list (unless --watch-only), then watch from
// the list's resourceVersion and print each change as it arrives, until
// the server ends the watch, --request-timeout passes or ctl is stopped.
//
// For the table formats the watch asks for Tables, as kubectl does: the
// server sends each event's object as a one-row Table (the columns only
// with the first), so rows are computed by the same printers as `get`.
func (o *getOptions) runWatch(ctx context.Context, c *client.Client, targets []namespacedTarget, out outputFormat) error {
	if len(targets) != 1 {
		return fmt.Errorf("you may only specify a single resource type")
	}
	t := targets[0]
	if len(t.names) > 1 {
		return fmt.Errorf("watch is only supported on individual resources and resource collections, but %d resources were found", len(t.names))
	}
	if len(t.names) == 1 {
		// One object: a list and watch of the collection narrowed to it.
		selector := "metadata.name=" + t.names[0]
		if o.fieldSelector != "" {
			selector += "," + o.fieldSelector
		}
		o.fieldSelector = selector
		t.names = nil
	}
	query := o.listQuery()
	if timeout, err := parseRequestTimeout(o.f.requestTimeout); err == nil && timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}

	opts := o.tableOptions(out)
	if o.showKind {
		opts.KindPrefix = t.resource.KindName()
	}
	table := printers.NewTablePrinter(o.f.out(), opts)
	eventType := func(e string) string {
		if o.outputWatchEvents {
			return e
		}
		return ""
	}
	objects := &objectStreamPrinter{out: out, w: o.f.out()}

	// The initial list, printed unless --watch-only; its resourceVersion
	// is where the watch starts.
	resourceVersion := ""
	if out.isTable() {
		first, errs := o.fetchTable(ctx, c, t, false)
		if len(errs) > 0 {
			return joinErrors(errs)
		}
		resourceVersion = first.ResourceVersion
		if !o.watchOnly {
			table.PrintTable(first, eventType(string(client.Added)))
			if err := table.Flush(); err != nil {
				return err
			}
		} else {
			// Remember the columns without printing: the first event
			// then prints the header with its row.
			table.PrintTable(&api.Table{ColumnDefinitions: first.ColumnDefinitions}, "")
		}
	} else {
		list, err := c.Dynamic(t.resource.Client()).Namespace(t.namespace).List(ctx, client.ListOptions{
			LabelSelector: query.Get("labelSelector"), FieldSelector: query.Get("fieldSelector")})
		if err != nil {
			return err
		}
		resourceVersion = list.ResourceVersion
		if !o.watchOnly {
			for _, item := range list.Items {
				if err := objects.print(withTypeMeta(item, t.resource.GroupVersion(), t.resource.Kind)); err != nil {
					return err
				}
			}
		}
	}

	query.Del("limit")
	query.Set("watch", "true")
	query.Set("resourceVersion", resourceVersion)
	headers := map[string]string{}
	if out.isTable() {
		headers["Accept"] = printers.TableAccept
	}
	body, err := c.Stream(ctx, t.resource.Path(t.namespace, "")+"?"+query.Encode(), headers)
	if err != nil {
		return watchEnd(ctx, err)
	}
	defer body.Close()
	dec := json.NewDecoder(body)
	for {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) {
				return nil // the server ended the watch
			}
			return watchEnd(ctx, err)
		}
		switch client.EventType(ev.Type) {
		case client.Bookmark:
			continue
		case client.Error:
			var status api.Status
			if err := json.Unmarshal(ev.Object, &status); err != nil {
				return fmt.Errorf("watch ended with an unreadable error: %w", err)
			}
			return apierrors.FromStatus(status)
		}
		if out.isTable() {
			rows, err := printers.DecodeTable(ev.Object)
			if err != nil {
				return err
			}
			table.PrintTable(rows, eventType(ev.Type))
			if err := table.Flush(); err != nil {
				return err
			}
			continue
		}
		obj, err := decodeObject(ev.Object)
		if err != nil {
			return err
		}
		if err := objects.print(obj); err != nil {
			return err
		}
	}
}

// watchEnd turns the end of a watch by ctl's own context (Ctrl-C,
// --request-timeout) into a normal exit, as kubectl exits 0 then.
func watchEnd(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// objectStreamPrinter prints watched objects in a non-table format: one
// name per line, or one document per object (YAML documents separated by
// "---").
type objectStreamPrinter struct {
	out     outputFormat
	w       io.Writer
	printed int
}

func (p *objectStreamPrinter) print(obj map[string]any) error {
	defer func() { p.printed++ }()
	if p.out.name == "yaml" && p.printed > 0 {
		if _, err := io.WriteString(p.w, "---\n"); err != nil {
			return err
		}
	}
	if p.out.name == "name" {
		return p.out.printObjects(p.w, []map[string]any{obj}, true)
	}
	return p.out.printDocument(p.w, obj)
}

// decodeObject decodes a JSON object keeping numbers as written.
func decodeObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	return obj, nil
}
