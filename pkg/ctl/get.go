package ctl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/ctl/printers"
)

// getOptions are the flags of `ctl get`.
type getOptions struct {
	f *factory

	output            string
	labelSelector     string
	fieldSelector     string
	allNamespaces     bool
	watch             bool
	watchOnly         bool
	outputWatchEvents bool
	showLabels        bool
	showKind          bool
	noHeaders         bool
	labelColumns      []string
	ignoreNotFound    bool
	filenames         []string
	recursive         bool
	chunkSize         int64
	sortBy            string
}

// newGetCommand is `ctl get`: list objects, or show some by name.
func newGetCommand(f *factory) *cobra.Command {
	o := &getOptions{f: f, chunkSize: 500}
	cmd := &cobra.Command{
		Use:               "get [(-o|--output=)wide|name|yaml|json|jsonpath=...] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...)",
		ValidArgsFunction: completeResourceTypeAndName(f, nil, true),
		Short:             "Display one or many resources",
		Long: `get prints objects as tables, the columns coming from the apiserver's
Table responses (the same columns kubectl shows), or as YAML, JSON, names or
JSONPath.

TYPE is any name discovery knows: po, pods, pod, Pod, deployments.apps,
deploy; several types are separated by commas, and "all" is every type in
the "all" category. With -w the command keeps running and prints a row each
time an object changes.`,
		Example: `  ctl get pods
  ctl get po,svc -A --show-labels
  ctl get deploy ng-dep -o yaml
  ctl get deploy/ng-dep rs -l app=nginx
  ctl get pods -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'
  ctl get pods -w`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.output, "output", "o", "", "output format: wide, name, yaml, json or jsonpath=TEMPLATE")
	flags.StringVarP(&o.labelSelector, "selector", "l", "", "label selector to filter on, e.g. -l app=web,tier!=db")
	flags.StringVar(&o.fieldSelector, "field-selector", "", "field selector to filter on, e.g. --field-selector status.phase=Running")
	flags.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "list the objects of every namespace (adds a NAMESPACE column)")
	flags.BoolVarP(&o.watch, "watch", "w", false, "after listing, watch for changes and print each changed object")
	flags.BoolVar(&o.watchOnly, "watch-only", false, "watch for changes without listing first")
	flags.BoolVar(&o.outputWatchEvents, "output-watch-events", false, "with --watch, print the event type (ADDED, MODIFIED, DELETED) in an EVENT column")
	flags.BoolVar(&o.showLabels, "show-labels", false, "add a LABELS column with every label")
	flags.BoolVar(&o.showKind, "show-kind", false, "prefix names with their kind even when only one type is listed")
	flags.BoolVar(&o.noHeaders, "no-headers", false, "leave out the header row")
	flags.StringSliceVarP(&o.labelColumns, "label-columns", "L", nil, "add a column with the value of each of these labels")
	flags.BoolVar(&o.ignoreNotFound, "ignore-not-found", false, "say nothing about objects that do not exist")
	flags.StringSliceVarP(&o.filenames, "filename", "f", nil, "files, directories or - (stdin) naming the objects to get")
	flags.BoolVarP(&o.recursive, "recursive", "R", false, "process the directories given with -f recursively")
	flags.Int64Var(&o.chunkSize, "chunk-size", o.chunkSize, "list this many objects per request (0: all at once)")
	flags.StringVar(&o.sortBy, "sort-by", "", "sort each list by this field path, e.g. .metadata.creationTimestamp or '{.spec.nodeName}'")
	return cmd
}

// run is `ctl get`.
func (o *getOptions) run(ctx context.Context, commandPath string, args []string) error {
	out, err := parseOutput(o.output, "custom-columns", "wide", "name", "yaml", "json")
	if err != nil {
		return err
	}
	var sorter *printers.Sorter
	if o.sortBy != "" {
		if sorter, err = printers.NewSorter(o.sortBy); err != nil {
			return err
		}
	}
	if out.columns != nil {
		out.columns.NoHeaders = o.noHeaders
	}
	if len(args) == 0 && len(o.filenames) == 0 {
		fmt.Fprintf(o.f.errOut(), "You must specify the type of resource to get. Use \"ctl api-resources\" for a complete list of supported resources.\n\n")
		return usageError(commandPath, "Required resource not specified.")
	}
	if len(args) > 0 && len(o.filenames) > 0 {
		return fmt.Errorf("when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well")
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	m, err := o.f.Mapper(ctx)
	if err != nil {
		return err
	}
	namespace, _, err := o.f.Namespace()
	if err != nil {
		return err
	}
	if o.allNamespaces {
		namespace = ""
	}

	var targets []namespacedTarget
	var errs []error
	single := false
	if len(o.filenames) > 0 {
		objects, readErrs := readFileObjects(o.f, m, o.filenames, o.recursive, false)
		errs = append(errs, readErrs...)
		for _, obj := range objects {
			targets = appendFileTarget(targets, obj)
		}
		single = len(objects) == 1 && len(readErrs) == 0
	} else {
		resolved, err := resolveArgs(m, args, commandPath)
		if err != nil {
			return err
		}
		for _, t := range resolved {
			targets = append(targets, namespacedTarget{target: t, namespace: namespace})
		}
		single = len(resolved) == 1 && len(resolved[0].names) == 1
	}
	for _, t := range targets {
		if len(t.names) > 0 && o.labelSelector != "" {
			return fmt.Errorf("name cannot be provided when a selector is specified")
		}
		if len(t.names) > 0 && o.allNamespaces && len(o.filenames) == 0 {
			return fmt.Errorf("a resource cannot be retrieved by name across all namespaces")
		}
	}

	if o.watch || o.watchOnly {
		if len(errs) > 0 {
			return joinErrors(errs)
		}
		return o.runWatch(ctx, c, targets, out)
	}
	if out.isTable() {
		errs = append(errs, o.printTables(ctx, c, targets, out, sorter)...)
	} else {
		errs = append(errs, o.printObjects(ctx, c, targets, out, single, sorter)...)
	}
	return joinErrors(errs)
}

// namespacedTarget is a target in one namespace ("" for all namespaces or
// a cluster-scoped resource).
type namespacedTarget struct {
	target
	namespace string
}

// appendFileTarget adds the object of a -f file to targets, joining it to
// the last target when it has the same resource and namespace.
func appendFileTarget(targets []namespacedTarget, obj fileObject) []namespacedTarget {
	if n := len(targets); n > 0 {
		last := &targets[n-1]
		if last.resource.GroupResource() == obj.resource.GroupResource() && last.namespace == obj.namespace {
			last.names = append(last.names, obj.name)
			return targets
		}
	}
	return append(targets, namespacedTarget{target: target{resource: obj.resource, names: []string{obj.name}}, namespace: obj.namespace})
}

// printTables prints one table per target, from the server's Tables, with
// a blank line between tables as kubectl separates kinds. It returns the
// errors met (objects not found), after printing what it could.
func (o *getOptions) printTables(ctx context.Context, c *client.Client, targets []namespacedTarget, out outputFormat, sorter *printers.Sorter) []error {
	tables := make([]*api.Table, len(targets))
	var errs []error
	for i, t := range targets {
		var tableErrs []error
		tables[i], tableErrs = o.fetchTable(ctx, c, t, sorter != nil)
		errs = append(errs, tableErrs...)
	}
	if sorter != nil {
		if err := sortTables(sorter, targets, tables); err != nil {
			return append(errs, err)
		}
	}

	written := &countingWriter{w: o.f.out()}
	separated := &separatorWriter{w: written}
	withKind := o.showKind || distinctResources(plainTargets(targets)) > 1
	for i, t := range targets {
		if i > 0 && !o.noHeaders && written.n > 0 {
			separated.ready = true
		}
		opts := o.tableOptions(out)
		if withKind {
			opts.KindPrefix = t.resource.KindName()
		}
		p := printers.NewTablePrinter(separated, opts)
		p.PrintTable(tables[i], "")
		if err := p.Flush(); err != nil {
			return append(errs, err)
		}
	}
	if written.n == 0 && len(errs) == 0 && !o.ignoreNotFound {
		o.printNoResources(targets)
	}
	return errs
}

// sortTables applies --sort-by to tables the way kubectl 1.32 does, quirks
// included. When the command fetched more than one thing (several types,
// or several names, each a separate response for kubectl), kubectl first
// sorts the Table responses themselves as objects, so a path that no
// Table has — any field of the listed objects — fails with "couldn't
// find any field". Then the rows of each table are sorted by their
// objects; a table whose rows cannot be sorted is printed empty, without
// an error (kubectl's printer drops the error).
func sortTables(sorter *printers.Sorter, targets []namespacedTarget, tables []*api.Table) error {
	fetched := 0
	for _, t := range targets {
		fetched += max(len(t.names), 1)
	}
	if fetched > 1 {
		docs := make([]map[string]any, len(tables))
		for i, table := range tables {
			docs[i] = tableDocument(table)
		}
		if err := sorter.SortObjects(docs); err != nil {
			return err
		}
	}
	for _, table := range tables {
		if err := sorter.SortTable(table); err != nil {
			if printers.IsUnsortable(err) {
				return err
			}
			table.Rows = nil
		}
	}
	return nil
}

// tableDocument is a Table as the decoded JSON document it arrived as,
// the form in which kubectl's --sort-by looks at several Table responses
// when it sorts them against each other (see sortTables).
func tableDocument(t *api.Table) map[string]any {
	data, err := json.Marshal(t)
	if err != nil {
		return map[string]any{}
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return map[string]any{}
	}
	return doc
}

// tableOptions are the decorations the flags ask for.
func (o *getOptions) tableOptions(out outputFormat) printers.TableOptions {
	return printers.TableOptions{
		Wide:          out.name == "wide",
		NoHeaders:     o.noHeaders,
		WithNamespace: o.allNamespaces,
		ShowLabels:    o.showLabels,
		LabelColumns:  o.labelColumns,
	}
}

// printNoResources says nothing was found, on stderr, naming the namespace
// when every type asked for lives in one.
func (o *getOptions) printNoResources(targets []namespacedTarget) {
	namespaced := !o.allNamespaces
	namespace := ""
	for _, t := range targets {
		namespaced = namespaced && t.resource.Namespaced
		namespace = t.namespace
	}
	if namespaced {
		fmt.Fprintf(o.f.errOut(), "No resources found in %s namespace.\n", namespace)
		return
	}
	fmt.Fprintln(o.f.errOut(), "No resources found")
}

// fetchTable asks the server for the Table of a target: one list (paged by
// --chunk-size) or one GET per name. Rows of all pages and names are
// joined; missing names are errors. withObjects asks the server to embed
// each row's whole object (includeObject=Object), which sorting needs.
func (o *getOptions) fetchTable(ctx context.Context, c *client.Client, t namespacedTarget, withObjects bool) (*api.Table, []error) {
	headers := map[string]string{"Accept": printers.TableAccept}
	include := ""
	if withObjects {
		include = "?includeObject=Object"
	}
	table := &api.Table{}
	add := func(body []byte) error {
		page, err := printers.DecodeTable(body)
		if err != nil {
			return err
		}
		if len(table.ColumnDefinitions) == 0 {
			table.ColumnDefinitions = page.ColumnDefinitions
		}
		table.Rows = append(table.Rows, page.Rows...)
		table.TypeMeta, table.ListMeta = page.TypeMeta, page.ListMeta
		return nil
	}
	if len(t.names) == 0 {
		query := o.listQuery()
		if withObjects {
			query.Set("includeObject", "Object")
		}
		for {
			_, body, err := c.Do(ctx, http.MethodGet, t.resource.Path(t.namespace, "")+"?"+query.Encode(), nil, headers)
			if err != nil {
				return table, []error{err}
			}
			if err := add(body); err != nil {
				return table, []error{err}
			}
			if table.Continue == "" {
				return table, nil
			}
			query.Set("continue", table.Continue)
		}
	}
	var errs []error
	for _, name := range t.names {
		_, body, err := c.Do(ctx, http.MethodGet, t.resource.Path(t.namespace, name)+include, nil, headers)
		if err != nil {
			if !(o.ignoreNotFound && apierrors.IsNotFound(err)) {
				errs = append(errs, err)
			}
			continue
		}
		if err := add(body); err != nil {
			errs = append(errs, err)
		}
	}
	return table, errs
}

// listQuery is the query of a list: selectors and page size.
func (o *getOptions) listQuery() url.Values {
	q := url.Values{}
	if o.labelSelector != "" {
		q.Set("labelSelector", o.labelSelector)
	}
	if o.fieldSelector != "" {
		q.Set("fieldSelector", o.fieldSelector)
	}
	// Sorting needs every object at once, so kubectl does not page then.
	if o.chunkSize > 0 && o.sortBy == "" {
		q.Set("limit", strconv.FormatInt(o.chunkSize, 10))
	}
	return q
}

// printObjects prints the targets' objects as YAML, JSON, names, a
// template or custom columns: one object when one was named, else a
// List of all, sorted with --sort-by.
func (o *getOptions) printObjects(ctx context.Context, c *client.Client, targets []namespacedTarget, out outputFormat, single bool, sorter *printers.Sorter) []error {
	var objects []map[string]any
	var errs []error
	for _, t := range targets {
		dyn := c.Dynamic(t.resource.Client()).Namespace(t.namespace)
		if len(t.names) == 0 {
			opts := client.ListOptions{LabelSelector: o.labelSelector, FieldSelector: o.fieldSelector}
			if o.sortBy == "" {
				opts.Limit = o.chunkSize
			}
			for {
				list, err := dyn.List(ctx, opts)
				if err != nil {
					errs = append(errs, err)
					break
				}
				for _, item := range list.Items {
					objects = append(objects, withTypeMeta(item, t.resource.GroupVersion(), t.resource.Kind))
				}
				if list.Continue == "" {
					break
				}
				opts.Continue = list.Continue
			}
			continue
		}
		for _, name := range t.names {
			obj, err := dyn.Get(ctx, name, client.GetOptions{})
			if err != nil {
				if !(o.ignoreNotFound && apierrors.IsNotFound(err)) {
					errs = append(errs, err)
				}
				continue
			}
			objects = append(objects, obj)
		}
	}
	if single && len(objects) == 0 {
		return errs
	}
	// Like kubectl, a single named object is printed as is; a list is
	// sorted, and fails if no item has the field.
	if sorter != nil && len(objects) > 0 && !(single && len(objects) == 1) {
		if err := sorter.SortObjects(objects); err != nil {
			return append(errs, err)
		}
	}
	if err := out.printObjects(o.f.out(), objects, single); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// withTypeMeta makes sure a list item carries its apiVersion and kind, as
// kubectl's printed items do.
func withTypeMeta(obj map[string]any, apiVersion, kind string) map[string]any {
	if _, ok := obj["apiVersion"]; !ok {
		obj["apiVersion"] = apiVersion
	}
	if _, ok := obj["kind"]; !ok {
		obj["kind"] = kind
	}
	return obj
}

// plainTargets drops the namespaces.
func plainTargets(targets []namespacedTarget) []target {
	out := make([]target, len(targets))
	for i, t := range targets {
		out[i] = t.target
	}
	return out
}

// countingWriter counts what was written, to know whether anything was.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// separatorWriter writes a blank line before its next write once ready is
// set: the line between two kinds' tables appears only if the second table
// prints something.
type separatorWriter struct {
	w     io.Writer
	ready bool
}

func (s *separatorWriter) Write(p []byte) (int, error) {
	if s.ready && len(p) > 0 {
		s.ready = false
		if _, err := s.w.Write([]byte("\n")); err != nil {
			return 0, err
		}
	}
	return s.w.Write(p)
}
