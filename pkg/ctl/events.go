package ctl

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/ctl/describe"
	"kplane/pkg/ctl/printers"
)

// eventsOptions are the flags of `ctl events`.
type eventsOptions struct {
	f *factory

	output        string
	allNamespaces bool
	watch         bool
	noHeaders     bool
	forObject     string
	types         []string
	chunkSize     int64
}

// newEventsCommand is `ctl events`: the Events of a namespace, or about
// one object, oldest first, as kubectl events lists them.
func newEventsCommand(f *factory) *cobra.Command {
	o := &eventsOptions{f: f, chunkSize: 500}
	cmd := &cobra.Command{
		Use:   "events [(-o|--output=)json|yaml|name|jsonpath=...] [--for TYPE/NAME] [--watch] [--types=Normal,Warning]",
		Short: "List events",
		Long: `events prints the Events of the namespace (or of every namespace with -A),
oldest first: when each was last seen (with how often it repeated), its type,
reason, the object it is about and its message.

Controllers, the scheduler and the kubelets record an Event for each thing
they do ("Scheduled", "Pulled", "ScalingReplicaSet"); this is where to look
first when something does not happen as expected.`,
		Example: `  ctl events
  ctl events -A
  ctl events --for deploy/ng-dep
  ctl events --for pod/web-0 --watch
  ctl events --types=Warning
  ctl events -o yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context())
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.output, "output", "o", "", "output format: json, yaml, name or jsonpath=TEMPLATE (default: a table)")
	flags.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "list the events of every namespace (adds a NAMESPACE column)")
	flags.BoolVarP(&o.watch, "watch", "w", false, "after listing the events, watch for more and print each as it arrives")
	flags.BoolVar(&o.noHeaders, "no-headers", false, "leave out the header row")
	flags.StringVar(&o.forObject, "for", "", "only the events about this object, as TYPE/NAME (pod/web-0, deploy/ng-dep)")
	flags.StringSliceVar(&o.types, "types", nil, "only events of these types: Normal, Warning")
	flags.Int64Var(&o.chunkSize, "chunk-size", o.chunkSize, "list this many events per request (0: all at once)")
	return cmd
}

// run is `ctl events`.
func (o *eventsOptions) run(ctx context.Context) error {
	for _, t := range o.types {
		if !strings.EqualFold(t, api.EventTypeNormal) && !strings.EqualFold(t, api.EventTypeWarning) {
			return fmt.Errorf("valid --types are Normal or Warning")
		}
	}
	out, err := parseOutput(o.output, "json", "yaml", "name")
	if err != nil {
		return err
	}
	namespace, _, err := o.f.Namespace()
	if err != nil {
		return err
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	opts := client.ListOptions{Limit: o.chunkSize}
	if o.forObject != "" {
		selector, err := o.forSelector(ctx)
		if err != nil {
			return err
		}
		opts.FieldSelector = selector
	}
	listNamespace := namespace
	if o.allNamespaces {
		listNamespace = ""
	}
	if o.watch {
		return o.runWatch(ctx, c, listNamespace, opts, out)
	}

	events, err := listAll(ctx, c.Events(listNamespace), opts)
	if err != nil {
		return err
	}
	events = slices.DeleteFunc(events, func(e api.Event) bool { return !o.wanted(e) })
	if len(events) == 0 {
		if o.allNamespaces {
			fmt.Fprintln(o.f.errOut(), "No events found.")
		} else {
			fmt.Fprintf(o.f.errOut(), "No events found in %s namespace.\n", namespace)
		}
		return nil
	}
	describe.SortEvents(events)
	if out.isTable() {
		p := o.newTablePrinter()
		p.PrintTable(eventsTable(events, time.Now().Add(clusterOffset(ctx, c))), "")
		return p.Flush()
	}
	return o.printObjects(out, events, false)
}

// forSelector turns --for TYPE/NAME into the field selector kubectl sends:
// involvedObject.kind=<Kind>,involvedObject.name=<name>.
func (o *eventsOptions) forSelector(ctx context.Context) (string, error) {
	if !strings.Contains(o.forObject, "/") {
		return "", fmt.Errorf("--for must be in resource/name form")
	}
	parts := strings.Split(o.forObject, "/")
	if len(parts) != 2 {
		return "", fmt.Errorf("arguments in resource/name form may not have more than one slash")
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return "", err
	}
	r, err := m.ResourceFor(parts[0])
	if err != nil {
		return "", err
	}
	return "involvedObject.kind=" + r.Kind + ",involvedObject.name=" + parts[1], nil
}

// wanted applies --types.
func (o *eventsOptions) wanted(e api.Event) bool {
	if len(o.types) == 0 {
		return true
	}
	return slices.ContainsFunc(o.types, func(t string) bool { return strings.EqualFold(t, e.Type) })
}

// newTablePrinter prints kubectl's events table; -A adds NAMESPACE.
func (o *eventsOptions) newTablePrinter() *printers.TablePrinter {
	return printers.NewTablePrinter(o.f.out(), printers.TableOptions{NoHeaders: o.noHeaders, WithNamespace: o.allNamespaces})
}

// eventColumns are the columns of kubectl's events table.
var eventColumns = []api.TableColumnDefinition{
	{Name: "Last Seen", Type: "string"},
	{Name: "Type", Type: "string"},
	{Name: "Reason", Type: "string"},
	{Name: "Object", Type: "string"},
	{Name: "Message", Type: "string"},
}

// eventsTable lays events out as kubectl events does: LAST SEEN is when
// the event last happened, with "(xN over T)" for a repeated one; OBJECT
// is Kind/name of the object it is about.
func eventsTable(events []api.Event, now time.Time) *api.Table {
	t := &api.Table{ColumnDefinitions: eventColumns}
	for _, e := range events {
		t.Rows = append(t.Rows, api.TableRow{
			Cells: []any{
				describe.EventInterval(e, now),
				e.Type,
				e.Reason,
				e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name,
				strings.TrimSpace(e.Message),
			},
			// The NAMESPACE column of -A comes from the row's metadata.
			Object: &api.PartialObjectMetadata{ObjectMeta: api.ObjectMeta{Namespace: e.Namespace}},
		})
	}
	return t
}

// printObjects prints events as an EventList (or, in a watch, one by
// one) in a non-table format.
func (o *eventsOptions) printObjects(out outputFormat, events []api.Event, single bool) error {
	items := make([]map[string]any, 0, len(events))
	for _, e := range events {
		e.APIVersion, e.Kind = "v1", "Event"
		data, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode event %s: %w", e.Name, err)
		}
		var obj map[string]any
		if err := json.Unmarshal(data, &obj); err != nil {
			return fmt.Errorf("encode event %s: %w", e.Name, err)
		}
		items = append(items, obj)
	}
	if out.name == "name" || single {
		return out.printObjects(o.f.out(), items, single)
	}
	list := map[string]any{"apiVersion": "v1", "kind": "EventList", "metadata": map[string]any{}, "items": anySlice(items)}
	return out.printDocument(o.f.out(), list)
}

// runWatch is `ctl events -w`: watch the events and print each one that
// is added or changes, until the watch ends or ctl is stopped. The watch
// starts with every existing event, as kubectl's does.
func (o *eventsOptions) runWatch(ctx context.Context, c *client.Client, namespace string, opts client.ListOptions, out outputFormat) error {
	opts.Limit = 0
	w, err := c.Events(namespace).Watch(ctx, opts)
	if err != nil {
		return err
	}
	defer w.Stop()
	offset := clusterOffset(ctx, c)
	table := o.newTablePrinter()
	first := true
	for ev := range w.ResultChan() {
		switch ev.Type {
		case client.Error:
			return ev.Err
		case client.Deleted, client.Bookmark:
			// Events expire after an hour; that is not news.
			continue
		}
		e, ok := ev.Object.(*api.Event)
		if !ok || !o.wanted(*e) {
			continue
		}
		if out.isTable() {
			table.PrintTable(eventsTable([]api.Event{*e}, time.Now().Add(offset)), "")
			if err := table.Flush(); err != nil {
				return err
			}
			continue
		}
		if out.name == "yaml" && !first {
			fmt.Fprintln(o.f.out(), "---")
		}
		first = false
		if err := o.printObjects(out, []api.Event{*e}, true); err != nil {
			return err
		}
	}
	return nil
}

// anySlice is items as the []any a decoded JSON list holds, which the
// JSONPath evaluator walks.
func anySlice(items []map[string]any) []any {
	out := make([]any, len(items))
	for i, item := range items {
		out[i] = item
	}
	return out
}
