package validation

import (
	"fmt"
	"regexp"
	"strings"
)

// The string formats Kubernetes uses for names, keys and values. Each Is…
// function returns the reasons a value is malformed, or nil when it is fine;
// callers turn each reason into an Invalid field error.

const (
	dns1123LabelFmt    = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123LabelErrMsg = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
	// DNS1123LabelMaxLength is the longest a DNS label (RFC 1123) may be.
	DNS1123LabelMaxLength = 63

	dns1123SubdomainFmt    = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1123SubdomainErrMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	// DNS1123SubdomainMaxLength is the longest a DNS subdomain (RFC 1123) may be.
	DNS1123SubdomainMaxLength = 253

	dns1035LabelFmt    = "[a-z]([-a-z0-9]*[a-z0-9])?"
	dns1035LabelErrMsg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
	// DNS1035LabelMaxLength is the longest a DNS label (RFC 1035) may be.
	DNS1035LabelMaxLength = 63

	qualifiedNameCharFmt    = "[A-Za-z0-9]"
	qualifiedNameExtCharFmt = "[-A-Za-z0-9_.]"
	qualifiedNameFmt        = "(" + qualifiedNameCharFmt + qualifiedNameExtCharFmt + "*)?" + qualifiedNameCharFmt
	qualifiedNameErrMsg     = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	qualifiedNameMaxLength  = 63

	labelValueFmt    = "(" + qualifiedNameFmt + ")?"
	labelValueErrMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	// LabelValueMaxLength is the longest a label value may be.
	LabelValueMaxLength = 63

	configMapKeyFmt    = `[-._a-zA-Z0-9]+`
	configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"

	percentFmt    = "[0-9]+%"
	percentErrMsg = "a valid percent string must be a numeric string followed by an ending '%'"

	portNameMaxLength = 15
)

var (
	dns1123LabelRegexp     = regexp.MustCompile("^" + dns1123LabelFmt + "$")
	dns1123SubdomainRegexp = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	dns1035LabelRegexp     = regexp.MustCompile("^" + dns1035LabelFmt + "$")
	qualifiedNameRegexp    = regexp.MustCompile("^" + qualifiedNameFmt + "$")
	labelValueRegexp       = regexp.MustCompile("^" + labelValueFmt + "$")
	configMapKeyRegexp     = regexp.MustCompile("^" + configMapKeyFmt + "$")
	percentRegexp          = regexp.MustCompile("^" + percentFmt + "$")
	portNameCharsetRegexp  = regexp.MustCompile("^[-a-z0-9]+$")
	portNameOneLetter      = regexp.MustCompile("[a-z]")
)

// IsDNS1123Label checks a DNS label (RFC 1123): at most 63 lower-case
// alphanumerics or '-', starting and ending alphanumeric. Namespaces,
// container names and StatefulSet names have this form.
func IsDNS1123Label(value string) []string {
	var errs []string
	if len(value) > DNS1123LabelMaxLength {
		errs = append(errs, maxLenError(DNS1123LabelMaxLength))
	}
	if !dns1123LabelRegexp.MatchString(value) {
		if dns1123SubdomainRegexp.MatchString(value) {
			// A valid subdomain that is not a valid label can only have dots.
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, regexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc"))
		}
	}
	return errs
}

// IsDNS1123Subdomain checks a DNS subdomain (RFC 1123): dot-separated DNS
// labels, 253 characters at most. Most object names have this form.
func IsDNS1123Subdomain(value string) []string {
	var errs []string
	if len(value) > DNS1123SubdomainMaxLength {
		errs = append(errs, maxLenError(DNS1123SubdomainMaxLength))
	}
	if !dns1123SubdomainRegexp.MatchString(value) {
		errs = append(errs, regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

// IsDNS1035Label checks a DNS label (RFC 1035), which unlike RFC 1123 must
// start with a letter. Service names have this form, because a Service's name
// becomes environment variables and DNS names in every pod.
func IsDNS1035Label(value string) []string {
	var errs []string
	if len(value) > DNS1035LabelMaxLength {
		errs = append(errs, maxLenError(DNS1035LabelMaxLength))
	}
	if !dns1035LabelRegexp.MatchString(value) {
		errs = append(errs, regexError(dns1035LabelErrMsg, dns1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

// IsQualifiedName checks what Kubernetes calls a qualified name: an optional
// DNS subdomain prefix and '/', then a name of at most 63 alphanumerics, '-',
// '_' or '.'. Label keys, annotation keys and finalizers have this form
// ("app", "app.kubernetes.io/name", "kubernetes.io/pv-protection").
func IsQualifiedName(value string) []string {
	var errs []string
	parts := strings.Split(value, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		var prefix string
		prefix, name = parts[0], parts[1]
		if len(prefix) == 0 {
			errs = append(errs, "prefix part "+emptyError())
		} else {
			for _, msg := range IsDNS1123Subdomain(prefix) {
				errs = append(errs, "prefix part "+msg)
			}
		}
	default:
		return append(errs, "a qualified name "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if len(name) == 0 {
		errs = append(errs, "name part "+emptyError())
	} else if len(name) > qualifiedNameMaxLength {
		errs = append(errs, "name part "+maxLenError(qualifiedNameMaxLength))
	}
	if !qualifiedNameRegexp.MatchString(name) {
		errs = append(errs, "name part "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// IsValidLabelValue checks a label value: empty, or at most 63
// alphanumerics, '-', '_' or '.', starting and ending alphanumeric.
func IsValidLabelValue(value string) []string {
	var errs []string
	if len(value) > LabelValueMaxLength {
		errs = append(errs, maxLenError(LabelValueMaxLength))
	}
	if !labelValueRegexp.MatchString(value) {
		errs = append(errs, regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

// IsValidPortName checks a named port (an IANA_SVC_NAME, RFC 6335): at most
// 15 lower-case alphanumerics or '-', with at least one letter, no leading,
// trailing or doubled '-'.
func IsValidPortName(port string) []string {
	var errs []string
	if len(port) > portNameMaxLength {
		errs = append(errs, maxLenError(portNameMaxLength))
	}
	if !portNameCharsetRegexp.MatchString(port) {
		errs = append(errs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !portNameOneLetter.MatchString(port) {
		errs = append(errs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(port, "--") {
		errs = append(errs, "must not contain consecutive hyphens")
	}
	if len(port) > 0 && (port[0] == '-' || port[len(port)-1] == '-') {
		errs = append(errs, "must not begin or end with a hyphen")
	}
	return errs
}

// IsValidPortNum checks that a port number is in 1–65535.
func IsValidPortNum(port int) []string {
	if 1 <= port && port <= 65535 {
		return nil
	}
	return []string{inclusiveRangeError(1, 65535)}
}

// IsConfigMapKey checks a key of a ConfigMap or Secret: it becomes a file
// name when the object is mounted as a volume, hence the ban on "." and "..".
func IsConfigMapKey(value string) []string {
	var errs []string
	if len(value) > DNS1123SubdomainMaxLength {
		errs = append(errs, maxLenError(DNS1123SubdomainMaxLength))
	}
	if !configMapKeyRegexp.MatchString(value) {
		errs = append(errs, regexError(configMapKeyErrMsg, configMapKeyFmt, "key.name", "KEY_NAME", "key-name"))
	}
	return append(errs, hasChDirPrefix(value)...)
}

// hasChDirPrefix rejects names that would escape their directory.
func hasChDirPrefix(value string) []string {
	switch {
	case value == ".":
		return []string{`must not be '.'`}
	case value == "..":
		return []string{`must not be '..'`}
	case strings.HasPrefix(value, ".."):
		return []string{`must not start with '..'`}
	}
	return nil
}

// IsValidPercent checks a percentage string such as "25%".
func IsValidPercent(percent string) []string {
	if !percentRegexp.MatchString(percent) {
		return []string{regexError(percentErrMsg, percentFmt, "1%", "93%")}
	}
	return nil
}

// IsEnvVarName checks an environment variable name. Kubernetes 1.32 accepts
// any printable ASCII except '=' (the RelaxedEnvironmentVariableValidation
// feature, on by default), so kplane does too.
func IsEnvVarName(value string) []string {
	if len(value) == 0 {
		return []string{"environment variable name " + emptyError()}
	}
	for _, r := range value {
		if r < ' ' || r > '~' || r == '=' {
			return []string{"a valid environment variable name must consist only of printable ASCII characters other than '='"}
		}
	}
	return nil
}

// IsValidPathSegmentName checks a name that must be usable as one segment of
// a URL path, the rule RBAC objects follow (their names may hold ':', as in
// "system:controller:deployment-controller").
func IsValidPathSegmentName(name string) []string {
	if name == "." || name == ".." {
		return []string{fmt.Sprintf("may not be '%s'", name)}
	}
	var errs []string
	for _, banned := range []string{"/", "%"} {
		if strings.Contains(name, banned) {
			errs = append(errs, fmt.Sprintf("may not contain '%s'", banned))
		}
	}
	return errs
}
