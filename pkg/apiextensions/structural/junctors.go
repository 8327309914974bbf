package structural

import (
	"fmt"

	"kplane/pkg/api"
)

// junctors validates data against allOf, anyOf, oneOf and not, which in a
// structural schema only add value validations. Like kube-openapi, a failed
// anyOf or oneOf also reports the errors of the alternative that got
// furthest, and a failed allOf the errors of each part.
func (v *validator) junctors(name string, s *api.JSONSchemaProps, data any) result {
	var r result
	if len(s.AnyOf) > 0 {
		var best *result
		succeeded := false
		for i := range s.AnyOf {
			alt := v.node(name, &s.AnyOf[i], data)
			if len(alt.errs) == 0 {
				succeeded, best = true, nil
				r.matches += alt.matches
				break
			}
			if best == nil || alt.matches > best.matches {
				best = &alt
			}
		}
		if !succeeded {
			r.add(v.junctorFailed("%q must validate at least one schema (anyOf)", name))
		}
		if best != nil {
			r.merge(*best)
		}
	}
	if len(s.OneOf) > 0 {
		var best, firstSuccess *result
		valid := 0
		for i := range s.OneOf {
			alt := v.node(name, &s.OneOf[i], data)
			if len(alt.errs) == 0 {
				valid++
				best = nil
				if firstSuccess == nil {
					firstSuccess = &alt
				}
				continue
			}
			if valid == 0 && (best == nil || alt.matches > best.matches) {
				best = &alt
			}
		}
		switch {
		case valid == 1:
			r.merge(*firstSuccess)
		case valid == 0:
			r.add(v.junctorFailed("%q must validate one and only one schema (oneOf). %s", name, "Found none valid"))
		default:
			r.add(v.junctorFailed("%q must validate one and only one schema (oneOf). %s", name, fmt.Sprintf("Found %d valid alternatives", valid)))
		}
		if valid != 1 && best != nil {
			r.merge(*best)
		}
	}
	if len(s.AllOf) > 0 {
		valid := 0
		for i := range s.AllOf {
			part := v.node(name, &s.AllOf[i], data)
			if len(part.errs) == 0 {
				valid++
			}
			r.merge(part)
		}
		if valid != len(s.AllOf) {
			suffix := ""
			if valid == 0 {
				suffix = ". None validated"
			}
			r.add(v.junctorFailed("%q must validate all the schemas (allOf)%s", name, suffix))
		}
	}
	if s.Not != nil {
		if len(v.node(name, s.Not, data).errs) == 0 {
			r.add(v.junctorFailed("%q must not validate the schema (not)", name))
		}
	}
	return r
}
