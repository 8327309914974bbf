package quota

import (
	"maps"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// This file is the arithmetic on ResourceLists that quota needs (upstream's
// pkg/quota/v1/resources.go). No function changes its arguments.

// Add returns a + b; a resource in only one of them keeps its amount.
func Add(a, b api.ResourceList) api.ResourceList {
	result := maps.Clone(a)
	if result == nil {
		result = api.ResourceList{}
	}
	for name, q := range b {
		if sum, ok := result[name]; ok {
			sum.Add(q)
			result[name] = sum
			continue
		}
		result[name] = q
	}
	return result
}

// Subtract returns a - b; a resource only in b comes out negative.
func Subtract(a, b api.ResourceList) api.ResourceList {
	result := maps.Clone(a)
	if result == nil {
		result = api.ResourceList{}
	}
	for name, q := range b {
		diff := result[name]
		diff.Sub(q)
		result[name] = diff
	}
	return result
}

// SubtractNonNegative is Subtract with every negative result raised to
// zero: what an update adds to usage, never a refund.
func SubtractNonNegative(a, b api.ResourceList) api.ResourceList {
	result := Subtract(a, b)
	for name, q := range result {
		if q.Sign() < 0 {
			result[name] = api.Quantity{}
		}
	}
	return result
}

// Mask returns the part of list named in names.
func Mask(list api.ResourceList, names []api.ResourceName) api.ResourceList {
	result := api.ResourceList{}
	for _, name := range names {
		if q, ok := list[name]; ok {
			result[name] = q
		}
	}
	return result
}

// LessThanOrEqual reports whether every amount of a is at most b's, and
// which resources of a exceed b. A resource b does not name is no limit.
func LessThanOrEqual(a, b api.ResourceList) (bool, []api.ResourceName) {
	var exceeded []api.ResourceName
	for _, name := range slices.Sorted(maps.Keys(a)) {
		limit, ok := b[name]
		if ok && a[name].Cmp(limit) > 0 {
			exceeded = append(exceeded, name)
		}
	}
	return len(exceeded) == 0, exceeded
}

// Equals reports whether a and b hold the same resources with equal amounts
// (1000m equals 1).
func Equals(a, b api.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, q := range a {
		other, ok := b[name]
		if !ok || q.Cmp(other) != 0 {
			return false
		}
	}
	return true
}

// RemoveZeros returns list without its zero amounts.
func RemoveZeros(list api.ResourceList) api.ResourceList {
	result := api.ResourceList{}
	for name, q := range list {
		if !q.IsZero() {
			result[name] = q
		}
	}
	return result
}

// IsNegative returns the resources of list with a negative amount, sorted.
func IsNegative(list api.ResourceList) []api.ResourceName {
	var negative []api.ResourceName
	for _, name := range slices.Sorted(maps.Keys(list)) {
		if list[name].Sign() < 0 {
			negative = append(negative, name)
		}
	}
	return negative
}

// ResourceNames returns the names of list, sorted.
func ResourceNames(list api.ResourceList) []api.ResourceName {
	return slices.Sorted(maps.Keys(list))
}

// Intersection returns the names in both a and b, in a's order.
func Intersection(a, b []api.ResourceName) []api.ResourceName {
	var result []api.ResourceName
	for _, name := range a {
		if slices.Contains(b, name) {
			result = append(result, name)
		}
	}
	return result
}

// hasPrefix reports whether name starts with one of prefixes.
func hasPrefix(name string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
