package labels

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The syntax rules below are upstream's (k8s.io/apimachinery util/validation):
// label keys are "qualified names" — an optional DNS-1123 subdomain prefix and a
// '/', then a name of at most 63 characters — and label values are at most 63
// characters of the same alphabet as a name, or empty. The messages quote the
// regular expressions because upstream's do; clients show them to users.
const (
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	qualifiedNameMaxLen = 63

	labelValueFmt    = "(" + qualifiedNameFmt + ")?"
	labelValueErrMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueMaxLen = 63

	dns1123LabelFmt        = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt    = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1123SubdomainErrMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	dns1123SubdomainMaxLen = 253
)

var (
	qualifiedNameRegexp    = regexp.MustCompile("^" + qualifiedNameFmt + "$")
	labelValueRegexp       = regexp.MustCompile("^" + labelValueFmt + "$")
	dns1123SubdomainRegexp = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
)

// validateKey lists what is wrong with a label key; nil means it is valid.
func validateKey(key string) []string {
	var problems []string
	name := key
	if prefix, rest, found := strings.Cut(key, "/"); found {
		if strings.Contains(rest, "/") {
			return []string{"a qualified name " + regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc") +
				" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}
		}
		name = rest
		switch {
		case prefix == "":
			problems = append(problems, "prefix part must be non-empty")
		default:
			for _, p := range validateDNS1123Subdomain(prefix) {
				problems = append(problems, "prefix part "+p)
			}
		}
	}
	switch {
	case name == "":
		problems = append(problems, "name part must be non-empty")
	case len(name) > qualifiedNameMaxLen:
		problems = append(problems, "name part "+maxLenError(qualifiedNameMaxLen))
	}
	if !qualifiedNameRegexp.MatchString(name) {
		problems = append(problems, "name part "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return problems
}

// validateValue lists what is wrong with a label value; nil means it is valid.
// The empty string is a valid value.
func validateValue(value string) []string {
	var problems []string
	if len(value) > labelValueMaxLen {
		problems = append(problems, maxLenError(labelValueMaxLen))
	}
	if !labelValueRegexp.MatchString(value) {
		problems = append(problems, regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return problems
}

func validateDNS1123Subdomain(s string) []string {
	var problems []string
	if len(s) > dns1123SubdomainMaxLen {
		problems = append(problems, maxLenError(dns1123SubdomainMaxLen))
	}
	if !dns1123SubdomainRegexp.MatchString(s) {
		problems = append(problems, regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, "example.com"))
	}
	return problems
}

// maxLenError and regexError phrase a problem exactly as upstream's helpers of
// the same names do (including the double space before "or" in the examples).
func maxLenError(n int) string {
	return fmt.Sprintf("must be no more than %d characters", n)
}

func regexError(msg, re string, examples ...string) string {
	var b strings.Builder
	b.WriteString(msg)
	b.WriteString(" (e.g. ")
	for i, e := range examples {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteString("'" + e + "', ")
	}
	b.WriteString("regex used for validation is '" + re + "')")
	return b.String()
}

// fieldError is one validation failure, printed the way upstream's
// field.Error prints: `<path>: <kind>: <value>: <detail>`, for example
// `values[0][app]: Invalid value: "a b": a valid label must be …`.
type fieldError struct {
	path   string
	kind   string // "Invalid value" or "Unsupported value"
	value  any    // a string is quoted; anything else is printed as Go syntax
	detail string
}

func invalid(path string, value any, detail string) *fieldError {
	return &fieldError{path: path, kind: "Invalid value", value: value, detail: detail}
}

// Error implements error.
func (e *fieldError) Error() string {
	var v string
	if s, ok := e.value.(string); ok {
		v = strconv.Quote(s)
	} else {
		v = fmt.Sprintf("%#v", e.value)
	}
	msg := e.path + ": " + e.kind + ": " + v
	if e.detail != "" {
		msg += ": " + e.detail
	}
	return msg
}
