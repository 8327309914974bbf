package labels

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"kplane/pkg/api"
)

// Selector decides which label sets are selected. Every implementation is
// immutable and safe for concurrent use.
type Selector interface {
	// Matches reports whether labels satisfy every requirement.
	Matches(labels map[string]string) bool
	// Empty reports whether the selector selects everything (has no
	// requirements). Nothing() is not empty: it selects nothing.
	Empty() bool
	// String renders the selector canonically in the query-string syntax:
	// requirements sorted by key, joined by ",", e.g. `app=nginx,tier in (a,b)`.
	String() string
	// Requirements returns a copy of the requirements, sorted by key.
	Requirements() []Requirement
}

// Everything returns a selector that matches every label set, including none.
// It is what an empty string or an empty LabelSelector means.
func Everything() Selector { return requirementSelector(nil) }

// Nothing returns a selector that matches no label set. It is what a nil
// *LabelSelector means: a ReplicaSet without a selector must own no pods.
//
// Like upstream's, it renders as "" — the same as Everything — so a caller
// that sends selectors over the wire must check for it first rather than
// send its String.
func Nothing() Selector { return nothingSelector{} }

// NewSelector returns a selector requiring all of reqs. The requirements are
// trusted to be valid (build them with NewRequirement); they are copied and
// sorted so String is canonical.
func NewSelector(reqs ...Requirement) Selector {
	if len(reqs) == 0 {
		return Everything()
	}
	sorted := make(requirementSelector, len(reqs))
	for i, r := range reqs {
		sorted[i] = Requirement{Key: r.Key, Operator: r.Operator, Values: normalizeValues(r.Values)}
	}
	// Sorting by key is upstream's order; breaking ties by the rendered
	// requirement makes `a=1,a!=2` and `a!=2,a=1` print the same.
	slices.SortFunc(sorted, func(a, b Requirement) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.String(), b.String()))
	})
	return sorted
}

// SelectorFromSet returns a selector that requires every key=value of set,
// such as a Service's spec.selector. A nil or empty set selects everything.
// Like upstream's, it does not validate the set: the apiserver validates the
// objects the sets come from.
func SelectorFromSet(set map[string]string) Selector {
	reqs := make([]Requirement, 0, len(set))
	for _, key := range slices.Sorted(maps.Keys(set)) {
		reqs = append(reqs, Requirement{Key: key, Operator: Equals, Values: []string{set[key]}})
	}
	return NewSelector(reqs...)
}

// FromLabelSelector converts the structured selector stored in objects
// (spec.selector of a Deployment, ReplicaSet, Job…) to a Selector, as
// upstream's metav1.LabelSelectorAsSelector does: a nil selector matches
// nothing, an empty one matches everything, and every matchLabels pair and
// matchExpressions entry becomes one requirement. Operators In and NotIn need
// values, Exists and DoesNotExist must have none.
func FromLabelSelector(ls *api.LabelSelector) (Selector, error) {
	if ls == nil {
		return Nothing(), nil
	}
	if len(ls.MatchLabels)+len(ls.MatchExpressions) == 0 {
		return Everything(), nil
	}
	reqs := make([]Requirement, 0, len(ls.MatchLabels)+len(ls.MatchExpressions))
	// Sorted so that, of several bad labels, the same one is always reported.
	for _, key := range slices.Sorted(maps.Keys(ls.MatchLabels)) {
		r, err := NewRequirement(key, Equals, []string{ls.MatchLabels[key]})
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	for _, expr := range ls.MatchExpressions {
		var op Operator
		switch expr.Operator {
		case "In":
			op = In
		case "NotIn":
			op = NotIn
		case "Exists":
			op = Exists
		case "DoesNotExist":
			op = DoesNotExist
		default:
			return nil, fmt.Errorf("%q is not a valid label selector operator", expr.Operator)
		}
		// append to nil so that "values: []" reports as []string(nil), as upstream's does.
		r, err := NewRequirement(expr.Key, op, append([]string(nil), expr.Values...))
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	return NewSelector(reqs...), nil
}

// requirementSelector is the ordinary selector: requirements sorted by key,
// all of which must hold. The nil value is Everything.
type requirementSelector []Requirement

// Matches implements the Selector interface.
func (s requirementSelector) Matches(labels map[string]string) bool {
	for _, r := range s {
		if !r.Matches(labels) {
			return false
		}
	}
	return true
}

// Empty implements the Selector interface.
func (s requirementSelector) Empty() bool { return len(s) == 0 }

// String implements the Selector interface.
func (s requirementSelector) String() string {
	parts := make([]string, len(s))
	for i, r := range s {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// Requirements implements the Selector interface.
func (s requirementSelector) Requirements() []Requirement {
	if len(s) == 0 {
		return nil
	}
	out := make([]Requirement, len(s))
	for i, r := range s {
		out[i] = Requirement{Key: r.Key, Operator: r.Operator, Values: slices.Clone(r.Values)}
	}
	return out
}

// nothingSelector matches no label set; see Nothing.
type nothingSelector struct{}

// Matches implements the Selector interface.
func (nothingSelector) Matches(map[string]string) bool { return false }

// Empty implements the Selector interface.
func (nothingSelector) Empty() bool { return false }

// String implements the Selector interface.
func (nothingSelector) String() string { return "" }

// Requirements implements the Selector interface.
func (nothingSelector) Requirements() []Requirement { return nil }
