package fields

import (
	"fmt"
	"slices"
	"strings"
)

// Parse reads a field selector: terms separated by ",", each
// `field=value`, `field==value` or `field!=value`. Empty terms are skipped,
// so "" selects everything. The value is escaped as EscapeValue does
// (`\,`, `\=`, `\\`) and may be empty: `spec.nodeName=` selects objects with
// no node. The field is taken literally up to the first operator; blanks are
// not trimmed, exactly as upstream does, so `status.phase = Running` names
// the field "status.phase " and ValidateFor will reject it.
//
// Parse does not know which fields a resource supports; follow it with
// ValidateFor. Errors read as upstream's:
// `invalid selector: 'a,b'; can't understand 'b'`.
func Parse(s string) (Selector, error) {
	terms := splitTerms(s)
	slices.Sort(terms)
	var reqs []Requirement
	for _, term := range terms {
		if term == "" {
			continue
		}
		field, op, rawValue, ok := splitTerm(term)
		if !ok {
			return nil, fmt.Errorf("invalid selector: '%s'; can't understand '%s'", s, term)
		}
		value, err := UnescapeValue(rawValue)
		if err != nil {
			return nil, err
		}
		// Upstream drops a term whose field and value are both empty (a bare
		// "=") instead of rejecting it; mirrored so the same input means
		// the same thing.
		if field == "" && value == "" {
			continue
		}
		reqs = append(reqs, Requirement{Field: field, Operator: op, Value: value})
	}
	return NewSelector(reqs...), nil
}

// splitTerms cuts a selector at every comma that is not escaped. The escapes
// stay in the terms; splitTerm and UnescapeValue deal with them.
func splitTerms(s string) []string {
	if s == "" {
		return nil
	}
	var terms []string
	start, escaped := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case escaped:
			escaped = false
		case s[i] == '\\':
			escaped = true
		case s[i] == ',':
			terms = append(terms, s[start:i])
			start = i + 1
		}
	}
	return append(terms, s[start:])
}

// splitTerm finds the first operator in a term. Fields cannot contain
// escapes, so the first "!=", "==" or "=" always ends the field; "!=" and
// "==" are tried before "=" so that neither leaves a stray "=" in the value.
func splitTerm(term string) (field string, op Operator, value string, ok bool) {
	for i := 0; i < len(term); i++ {
		rest := term[i:]
		switch {
		case strings.HasPrefix(rest, "!="):
			return term[:i], NotEquals, rest[2:], true
		case strings.HasPrefix(rest, "=="):
			return term[:i], Equals, rest[2:], true
		case strings.HasPrefix(rest, "="):
			return term[:i], Equals, rest[1:], true
		}
	}
	return "", "", "", false
}
