package metricsserver

// This file renders metrics as a meta.k8s.io/v1 Table, upstream's
// pkg/api/table.go: `kubectl get --raw` with
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` (and `kubectl get
// nodes.metrics.k8s.io`) shows
//
//	NAME      CPU          MEMORY     WINDOW
//	node1     204893745n   105812Ki   15.012s
//
// one column per resource in the usage, named as the resource ("cpu",
// "memory"), and the window. A pod's row sums its containers.

import "kplane/pkg/api"

// tableEntry is one row to render: the object's metadata, its usage and
// window, and the object itself for includeObject=Object.
type tableEntry struct {
	meta   api.ObjectMeta
	usage  api.ResourceList
	window api.Duration
	object any
}

// usageColumns are the resource columns, in upstream's (sorted) order.
var usageColumns = []api.ResourceName{api.ResourceCPU, api.ResourceMemory}

// nodeEntries are the rows of node metrics.
func nodeEntries(items []api.NodeMetrics) []tableEntry {
	entries := make([]tableEntry, 0, len(items))
	for _, nm := range items {
		entries = append(entries, tableEntry{meta: nm.ObjectMeta, usage: nm.Usage, window: nm.Window, object: nm})
	}
	return entries
}

// podEntries are the rows of pod metrics, each summing its containers.
func podEntries(items []api.PodMetrics) []tableEntry {
	entries := make([]tableEntry, 0, len(items))
	for _, pm := range items {
		sum := api.ResourceList{}
		for _, c := range pm.Containers {
			for name, q := range c.Usage {
				total := sum[name]
				total.Add(q)
				sum[name] = total
			}
		}
		entries = append(entries, tableEntry{meta: pm.ObjectMeta, usage: sum, window: pm.Window, object: pm})
	}
	return entries
}

// newTable renders entries. includeObject is None, Metadata (the default)
// or Object, as for every Table the apiserver serves.
func newTable(entries []tableEntry, includeObject string) api.Table {
	t := api.Table{
		TypeMeta: api.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ColumnDefinitions: []api.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name", Description: "Name of the resource"},
		},
		Rows: []api.TableRow{},
	}
	for _, name := range usageColumns {
		t.ColumnDefinitions = append(t.ColumnDefinitions, api.TableColumnDefinition{Name: string(name), Type: "string", Format: "quantity"})
	}
	t.ColumnDefinitions = append(t.ColumnDefinitions, api.TableColumnDefinition{Name: "Window", Type: "string", Format: "duration"})
	for _, e := range entries {
		cells := []any{e.meta.Name}
		for _, name := range usageColumns {
			q := e.usage[name]
			cells = append(cells, q.String())
		}
		cells = append(cells, e.window.Duration.String())
		row := api.TableRow{Cells: cells}
		switch includeObject {
		case "None":
		case "Object":
			row.Object = e.object
		default:
			row.Object = api.PartialObjectMetadata{
				TypeMeta:   api.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
				ObjectMeta: e.meta,
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
