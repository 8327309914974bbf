package labels

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	apierrors "kplane/pkg/api/errors"
)

// Operator relates a label key to the values of a Requirement. The constants
// carry the spellings of upstream's selection.Operator.
type Operator string

// The operators a Requirement can use.
const (
	// Equals (`key=value`) requires the label to be present with that value.
	Equals Operator = "="
	// DoubleEquals (`key==value`) means the same as Equals; it is kept apart
	// only so a selector prints back the way it was written.
	DoubleEquals Operator = "=="
	// NotEquals (`key!=value`) requires the label to be absent or different.
	NotEquals Operator = "!="
	// In (`key in (a,b)`) requires the label to be present with one of the values.
	In Operator = "in"
	// NotIn (`key notin (a,b)`) requires the label to be absent or to have none
	// of the values.
	NotIn Operator = "notin"
	// Exists (a bare `key`) requires the label to be present, with any value.
	Exists Operator = "exists"
	// DoesNotExist (`!key`) requires the label to be absent.
	DoesNotExist Operator = "!"
	// GreaterThan (`key>5`) requires the label to be present and to hold an
	// integer greater than the value. Upstream added it for node affinity.
	GreaterThan Operator = "gt"
	// LessThan (`key<5`) is GreaterThan's mirror image.
	LessThan Operator = "lt"
)

// allOperators lists every valid operator, in the order upstream lists them
// in its "supported values" message.
var allOperators = []Operator{In, NotIn, Equals, DoubleEquals, NotEquals, GreaterThan, LessThan, Exists, DoesNotExist}

// Requirement is one condition of a Selector: Key related to Values by Operator.
//
// Requirements built by NewRequirement, Parse or FromLabelSelector are valid
// and have their Values sorted and de-duplicated (a value set, as upstream
// keeps it); Exists and DoesNotExist have no Values, the exact-match and
// comparison operators have exactly one, In and NotIn at least one. The empty
// string is a valid value: `env in ()` means "env is present and empty".
type Requirement struct {
	Key      string
	Operator Operator
	Values   []string
}

// NewRequirement checks and builds a Requirement. It rejects an invalid key or
// value, an unknown operator, and a number of values that does not fit the
// operator, reporting every problem at once in upstream's words, e.g.
// `values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty`.
func NewRequirement(key string, op Operator, values []string) (Requirement, error) {
	var errs []error
	if problems := validateKey(key); len(problems) > 0 {
		errs = append(errs, invalid("key", key, strings.Join(problems, "; ")))
	}
	switch op {
	case In, NotIn:
		if len(values) == 0 {
			errs = append(errs, invalid("values", values, "for 'in', 'notin' operators, values set can't be empty"))
		}
	case Equals, DoubleEquals, NotEquals:
		if len(values) != 1 {
			errs = append(errs, invalid("values", values, "exact-match compatibility requires one single value"))
		}
	case Exists, DoesNotExist:
		if len(values) != 0 {
			errs = append(errs, invalid("values", values, "values set must be empty for exists and does not exist"))
		}
	case GreaterThan, LessThan:
		if len(values) != 1 {
			errs = append(errs, invalid("values", values, "for 'Gt', 'Lt' operators, exactly one value is required"))
		}
		for i, v := range values {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				errs = append(errs, invalid(fmt.Sprintf("values[%d]", i), v, "for 'Gt', 'Lt' operators, the value must be an integer"))
			}
		}
	default:
		errs = append(errs, unsupportedOperator(op))
	}
	for i, v := range values {
		if problems := validateValue(v); len(problems) > 0 {
			errs = append(errs, invalid(fmt.Sprintf("values[%d][%s]", i, key), v, strings.Join(problems, "; ")))
		}
	}
	if err := apierrors.Aggregate(errs); err != nil {
		return Requirement{}, err
	}
	return Requirement{Key: key, Operator: op, Values: normalizeValues(values)}, nil
}

func unsupportedOperator(op Operator) error {
	quoted := make([]string, len(allOperators))
	for i, o := range allOperators {
		quoted[i] = strconv.Quote(string(o))
	}
	return &fieldError{path: "operator", kind: "Unsupported value", value: string(op),
		detail: "supported values: " + strings.Join(quoted, ", ")}
}

// normalizeValues returns a sorted copy without duplicates, or nil for none;
// a Requirement's values are a set, and a canonical order is what makes
// String deterministic.
func normalizeValues(values []string) []string {
	if len(values) == 0 {
		return nil
	}
	out := slices.Clone(values)
	slices.Sort(out)
	return slices.Compact(out)
}

// Matches reports whether labels satisfy the requirement. A missing label
// satisfies only NotEquals, NotIn and DoesNotExist.
func (r Requirement) Matches(labels map[string]string) bool {
	value, present := labels[r.Key]
	switch r.Operator {
	case Equals, DoubleEquals, In:
		return present && slices.Contains(r.Values, value)
	case NotEquals, NotIn:
		return !present || !slices.Contains(r.Values, value)
	case Exists:
		return present
	case DoesNotExist:
		return !present
	case GreaterThan, LessThan:
		// Upstream treats a label that is not an integer as not matching,
		// rather than as an error: the selector is valid, the object just
		// isn't selected.
		if !present || len(r.Values) != 1 {
			return false
		}
		have, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return false
		}
		want, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil {
			return false
		}
		if r.Operator == GreaterThan {
			return have > want
		}
		return have < want
	default:
		return false
	}
}

// String renders the requirement in the query-string syntax Parse reads:
// `key=v`, `key==v`, `key!=v`, `key in (a,b)`, `key notin (a)`, `key`,
// `!key`, `key>5`, `key<5`. Values come out sorted.
func (r Requirement) String() string {
	values := r.Values
	if !slices.IsSorted(values) {
		values = slices.Sorted(slices.Values(values))
	}
	joined := strings.Join(values, ",")
	switch r.Operator {
	case Exists:
		return r.Key
	case DoesNotExist:
		return "!" + r.Key
	case In, NotIn:
		return r.Key + " " + string(r.Operator) + " (" + joined + ")"
	case GreaterThan:
		return r.Key + ">" + joined
	case LessThan:
		return r.Key + "<" + joined
	default:
		return r.Key + string(r.Operator) + joined
	}
}
