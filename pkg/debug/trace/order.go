package trace

import (
	"slices"
	"strings"

	"kplane/pkg/debug"
)

// Before orders records of several components by time, then component,
// then sequence: two records of one component with the same time keep
// their order.
func Before(a, b *debug.Record) bool {
	if !a.Time.Equal(b.Time) {
		return a.Time.Before(b.Time)
	}
	if c := strings.Compare(a.Component, b.Component); c != 0 {
		return c < 0
	}
	return a.Seq < b.Seq
}

// Sort puts records in the order of Before.
func Sort(records []debug.Record) {
	slices.SortStableFunc(records, func(a, b debug.Record) int {
		switch {
		case Before(&a, &b):
			return -1
		case Before(&b, &a):
			return 1
		}
		return 0
	})
}
