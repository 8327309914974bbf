package ctl

// The tables of `ctl top`, printed as kubectl's metricsutil.TopCmdPrinter
// prints them (staging/src/k8s.io/kubectl/pkg/metricsutil/metrics_printer.go
// and metrics_sorter.go), byte for byte: CPU in millicores ("250m"), memory
// in whole mebibytes ("200Mi", rounded down), a node's share of its
// allocatable as a whole percentage (rounded down), every cell followed by a
// tab for kubectl's tab writer — so the last column carries its padding, as
// kubectl's does.

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"kplane/pkg/api"
)

// topMeasuredResources are the columns of usage, in order.
var topMeasuredResources = []api.ResourceName{api.ResourceCPU, api.ResourceMemory}

// The headers of kubectl top's tables.
var (
	topNodeColumns = []string{"NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"}
	topPodColumns  = []string{"NAME", "CPU(cores)", "MEMORY(bytes)"}
)

// newTopTabWriter is kubectl's printers.GetNewTabWriter: columns at least 6
// wide, 3 spaces between them.
func newTopTabWriter(out io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(out, 6, 4, 3, ' ', 0)
}

// printNodeMetrics prints `top node`: one line per node with metrics, then
// a line of <unknown> for each node in allocatable that has none (a node
// metrics-server could not scrape). allocatable maps a node's name to what
// the percentages are of.
func printNodeMetrics(out io.Writer, metrics []api.NodeMetrics, allocatable map[string]api.ResourceList, noHeaders bool, sortBy string) error {
	if len(metrics) == 0 {
		return nil
	}
	w := newTopTabWriter(out)
	sortNodeMetrics(metrics, sortBy)
	if !noHeaders {
		printTopCells(w, topNodeColumns...)
		fmt.Fprint(w, "\n")
	}
	missing := make(map[string]bool, len(allocatable))
	for name := range allocatable {
		missing[name] = true
	}
	for _, m := range metrics {
		printTopUsageLine(w, m.Name, m.Usage, allocatable[m.Name])
		delete(missing, m.Name)
	}
	// kubectl prints these in map order; sorted, the output is stable.
	for _, name := range slices.Sorted(maps.Keys(missing)) {
		printTopCells(w, name, "<unknown>", "<unknown>", "<unknown>", "<unknown>")
		fmt.Fprint(w, "\n")
	}
	return w.Flush()
}

// printPodMetrics prints `top pod`: one line per pod (the sum of its
// containers) or, with containers, one per container; withNamespace adds
// the NAMESPACE column (-A), sum a total line under the usage columns.
func printPodMetrics(out io.Writer, metrics []api.PodMetrics, containers, withNamespace, noHeaders bool, sortBy string, sum bool) error {
	if len(metrics) == 0 {
		return nil
	}
	w := newTopTabWriter(out)
	// kubectl counts the extra columns only when it prints the header, so
	// with --no-headers the total line sits further left; kept as it is.
	columns := len(topPodColumns)
	if !noHeaders {
		if withNamespace {
			printTopCells(w, "NAMESPACE")
			columns++
		}
		if containers {
			printTopCells(w, "POD")
			columns++
		}
		printTopCells(w, topPodColumns...)
		fmt.Fprint(w, "\n")
	}
	sortPodMetrics(metrics, withNamespace, sortBy)
	for _, m := range metrics {
		if containers {
			sortContainerMetrics(m.Containers, sortBy)
			for _, c := range m.Containers {
				if withNamespace {
					printTopCells(w, m.Namespace)
				}
				printTopCells(w, m.Name)
				printTopUsageLine(w, c.Name, c.Usage, nil)
			}
			continue
		}
		if withNamespace {
			printTopCells(w, m.Namespace)
		}
		printTopUsageLine(w, m.Name, podUsage(m), nil)
	}
	if sum {
		total := api.ResourceList{}
		for _, m := range metrics {
			for name, q := range podUsage(m) {
				t := total[name]
				t.Add(q)
				total[name] = t
			}
		}
		printTopCells(w, slices.Repeat([]string{""}, max(columns-2, 0))...)
		printTopCells(w, "________", "________")
		fmt.Fprint(w, "\n")
		printTopCells(w, slices.Repeat([]string{""}, max(columns-3, 0))...)
		printTopUsageLine(w, "", total, nil)
	}
	return w.Flush()
}

// printTopCells writes each value as a tab-terminated cell.
func printTopCells(w io.Writer, values ...string) {
	for _, v := range values {
		fmt.Fprintf(w, "%s\t", v)
	}
}

// printTopUsageLine writes name, then for CPU and memory the usage and,
// when available has that resource, the usage as a percentage of it.
func printTopUsageLine(w io.Writer, name string, usage, available api.ResourceList) {
	printTopCells(w, name)
	for _, res := range topMeasuredResources {
		q := usage[res]
		printTopCells(w, formatTopUsage(res, q))
		if a, ok := available[res]; ok {
			fraction := float64(q.MilliValue()) / float64(a.MilliValue()) * 100
			printTopCells(w, fmt.Sprintf("%d%%", int64(fraction)))
		}
	}
	fmt.Fprint(w, "\n")
}

// formatTopUsage writes one usage figure the way kubectl top does: CPU in
// millicores, memory in whole mebibytes.
func formatTopUsage(res api.ResourceName, q api.Quantity) string {
	switch res {
	case api.ResourceCPU:
		return fmt.Sprintf("%dm", q.MilliValue())
	case api.ResourceMemory:
		return fmt.Sprintf("%dMi", q.Value()/(1024*1024))
	default:
		return fmt.Sprintf("%d", q.Value())
	}
}

// podUsage sums a pod's containers' CPU and memory.
func podUsage(m api.PodMetrics) api.ResourceList {
	total := api.ResourceList{}
	for _, res := range topMeasuredResources {
		total[res] = api.MustParseQuantity("0")
	}
	for _, c := range m.Containers {
		for _, res := range topMeasuredResources {
			t := total[res]
			t.Add(c.Usage[res])
			total[res] = t
		}
	}
	return total
}

// The sort orders of kubectl top: by name (and namespace first with -A)
// unless --sort-by asks for the largest CPU or memory first. kubectl's sort
// is not stable; a stable sort over name order keeps ties in name order.

func sortNodeMetrics(metrics []api.NodeMetrics, sortBy string) {
	slices.SortFunc(metrics, func(a, b api.NodeMetrics) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(metrics, func(a, b api.NodeMetrics) int {
		return compareUsage(a.Usage, b.Usage, sortBy)
	})
}

func sortPodMetrics(metrics []api.PodMetrics, withNamespace bool, sortBy string) {
	slices.SortFunc(metrics, func(a, b api.PodMetrics) int {
		if withNamespace && a.Namespace != b.Namespace {
			return strings.Compare(a.Namespace, b.Namespace)
		}
		return strings.Compare(a.Name, b.Name)
	})
	slices.SortStableFunc(metrics, func(a, b api.PodMetrics) int {
		return compareUsage(podUsage(a), podUsage(b), sortBy)
	})
}

func sortContainerMetrics(metrics []api.ContainerMetrics, sortBy string) {
	slices.SortFunc(metrics, func(a, b api.ContainerMetrics) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(metrics, func(a, b api.ContainerMetrics) int {
		return compareUsage(a.Usage, b.Usage, sortBy)
	})
}

// compareUsage orders the larger use of sortBy first; without sortBy
// everything is equal (name order stands).
func compareUsage(a, b api.ResourceList, sortBy string) int {
	var x, y int64
	switch sortBy {
	case topSortByCPU:
		x, y = a.Cpu().MilliValue(), b.Cpu().MilliValue()
	case topSortByMemory:
		x, y = a.Memory().Value(), b.Memory().Value()
	default:
		return 0
	}
	switch {
	case x > y:
		return -1
	case x < y:
		return 1
	}
	return 0
}
