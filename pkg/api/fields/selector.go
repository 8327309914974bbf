// Package fields selects objects by the values of a few of their fields, the
// way Kubernetes does for `?fieldSelector=` and `kubectl --field-selector`:
// `spec.nodeName=node-1` is how a kubelet lists only its own pods, and
// `involvedObject.name=web-0` is how `kubectl describe` finds an object's
// events.
//
// A field selector is much simpler than a label selector: a comma-separated
// list of `field=value`, `field==value` or `field!=value` terms that must all
// hold. There is no "in" and no "exists"; a field an object does not have
// counts as the empty string, so `spec.nodeName=` selects unscheduled pods.
// Which fields may be used is decided per resource (see ValidateFor); the
// apiserver turns the object into a Set of those fields and calls Matches.
package fields

import (
	"cmp"
	"maps"
	"slices"
	"strings"
)

// Set is the field values of one object that selectors can look at, keyed by
// field path, e.g. {"metadata.name": "web-0", "status.phase": "Running"}. A
// missing field reads as "".
type Set map[string]string

// Operator relates a field to a value in a Requirement.
type Operator string

// The operators of a field selector. "==" is accepted by Parse and means the
// same as "="; requirements always carry Equals for it, as upstream's do.
const (
	Equals    Operator = "="
	NotEquals Operator = "!="
)

// Requirement is one term of a field selector: Field related to Value by
// Operator. Value is the literal value, already unescaped.
type Requirement struct {
	Field    string
	Operator Operator
	Value    string
}

// Matches reports whether fields satisfy the requirement.
func (r Requirement) Matches(fields Set) bool {
	if r.Operator == NotEquals {
		return fields[r.Field] != r.Value
	}
	return fields[r.Field] == r.Value
}

// String renders the requirement as Parse reads it, escaping the value.
func (r Requirement) String() string {
	return r.Field + string(r.Operator) + EscapeValue(r.Value)
}

// Selector decides which field Sets are selected. Every implementation is
// immutable and safe for concurrent use.
type Selector interface {
	// Matches reports whether fields satisfy every requirement.
	Matches(fields Set) bool
	// Empty reports whether the selector selects everything.
	Empty() bool
	// String renders the selector canonically: terms sorted, joined by ",",
	// values escaped, e.g. `metadata.name=web-0,status.phase!=Failed`.
	String() string
	// Requirements returns a copy of the terms, in String's order.
	Requirements() []Requirement
	// RequiresExactMatch reports the value the selector requires field to
	// equal, if it has a `field=value` term. The apiserver uses it to narrow
	// a list before matching (e.g. by metadata.name or spec.nodeName).
	RequiresExactMatch(field string) (value string, found bool)
}

// Everything returns a selector that selects every object.
func Everything() Selector { return andSelector(nil) }

// NewSelector returns a selector requiring all of reqs, in canonical order.
// Requirements with an operator other than NotEquals are treated as Equals.
func NewSelector(reqs ...Requirement) Selector {
	if len(reqs) == 0 {
		return Everything()
	}
	out := make(andSelector, len(reqs))
	for i, r := range reqs {
		if r.Operator != NotEquals {
			r.Operator = Equals
		}
		out[i] = r
	}
	// Upstream sorts the raw terms; sorting the rendered terms instead makes
	// `a==x` and `a=x` print the same, so String is truly canonical.
	slices.SortFunc(out, func(a, b Requirement) int { return cmp.Compare(a.String(), b.String()) })
	return out
}

// SelectorFromSet returns a selector requiring every field=value of set. A
// nil or empty set selects everything.
func SelectorFromSet(set Set) Selector {
	reqs := make([]Requirement, 0, len(set))
	for _, field := range slices.Sorted(maps.Keys(set)) {
		reqs = append(reqs, Requirement{Field: field, Operator: Equals, Value: set[field]})
	}
	return NewSelector(reqs...)
}

// OneTermEqualSelector returns the selector `field=value`; clients use it to
// build the common one-term selectors, e.g. a kubelet's `spec.nodeName=<node>`.
func OneTermEqualSelector(field, value string) Selector {
	return NewSelector(Requirement{Field: field, Operator: Equals, Value: value})
}

// andSelector is a list of requirements in canonical order, all of which must
// hold. The nil value is Everything.
type andSelector []Requirement

// Matches implements the Selector interface.
func (s andSelector) Matches(fields Set) bool {
	for _, r := range s {
		if !r.Matches(fields) {
			return false
		}
	}
	return true
}

// Empty implements the Selector interface.
func (s andSelector) Empty() bool { return len(s) == 0 }

// String implements the Selector interface.
func (s andSelector) String() string {
	terms := make([]string, len(s))
	for i, r := range s {
		terms[i] = r.String()
	}
	return strings.Join(terms, ",")
}

// Requirements implements the Selector interface.
func (s andSelector) Requirements() []Requirement { return slices.Clone([]Requirement(s)) }

// RequiresExactMatch implements the Selector interface.
func (s andSelector) RequiresExactMatch(field string) (string, bool) {
	for _, r := range s {
		if r.Field == field && r.Operator == Equals {
			return r.Value, true
		}
	}
	return "", false
}
