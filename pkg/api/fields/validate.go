package fields

import "slices"

// UnsupportedFieldError says a selector used a field the resource cannot be
// selected by. The apiserver answers it with 400 BadRequest, as upstream does.
type UnsupportedFieldError struct {
	Field string
}

// Error returns upstream's wording: `field label not supported: spec.foo`.
func (e *UnsupportedFieldError) Error() string {
	return "field label not supported: " + e.Field
}

// ValidateFor checks that sel only uses fields in allowed, the fields the
// resource supports. Upstream every resource supports metadata.name and
// metadata.namespace, plus its own few (pods: spec.nodeName, status.phase,
// …; events: involvedObject.*, reason, type, …); allowed must list them all.
// It returns an *UnsupportedFieldError for the first field, in String's
// order, that is not allowed.
func ValidateFor(sel Selector, allowed []string) error {
	if sel == nil {
		return nil
	}
	for _, r := range sel.Requirements() {
		if !slices.Contains(allowed, r.Field) {
			return &UnsupportedFieldError{Field: r.Field}
		}
	}
	return nil
}
