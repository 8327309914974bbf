package main

import (
	"fmt"
	"slices"
)

// spread is what the table shows of one metric's runs: the median, the
// smallest and largest run, and how many runs there were.
type spread struct {
	median, min, max float64
	n                int
}

// spreadOf summarises runs; ok is false when there are none. The median of
// an even number of runs is the mean of the middle two.
func spreadOf(runs []float64) (s spread, ok bool) {
	if len(runs) == 0 {
		return spread{}, false
	}
	sorted := slices.Clone(runs)
	slices.Sort(sorted)
	n := len(sorted)
	median := sorted[n/2]
	if n%2 == 0 {
		median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return spread{median: median, min: sorted[0], max: sorted[n-1], n: n}, true
}

// String prints "2.37 [2.05–2.67]".
func (s spread) String() string {
	return fmt.Sprintf("%s [%s–%s]", number(s.median), number(s.min), number(s.max))
}

// number prints a figure with as many digits as it deserves: rates as whole
// numbers, megabytes with one decimal, milliseconds, seconds and ratios with
// two.
func number(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}
