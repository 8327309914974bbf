package structural

import (
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/api/validation"
)

// The formats a CRD schema may give a string, as upstream lists them (go-
// openapi's strfmt registry plus Kubernetes' quantity and names). Names
// compare without dashes, so "date-time" is "datetime". A format upstream
// does not know is ignored, not refused: older clusters stored such schemas.
var stringFormats = map[string]func(string) bool{
	"bsonobjectid": regexp.MustCompile(`^[0-9a-fA-F]{24}$`).MatchString,
	"uri":          isURI,
	"email":        isEmail,
	"hostname":     isHostname,
	"ipv4":         func(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ".") },
	"ipv6":         func(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ":") },
	"cidr":         func(s string) bool { _, _, err := net.ParseCIDR(s); return err == nil },
	"mac":          func(s string) bool { _, err := net.ParseMAC(s); return err == nil },
	"uuid":         regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`).MatchString,
	"uuid3":        regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$`).MatchString,
	"uuid4":        regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`).MatchString,
	"uuid5":        regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`).MatchString,
	"isbn":         func(s string) bool { return isISBN10(s) || isISBN13(s) },
	"isbn10":       isISBN10,
	"isbn13":       isISBN13,
	"creditcard":   isCreditCard,
	"ssn":          regexp.MustCompile(`^\d{3}[- ]?\d{2}[- ]?\d{4}$`).MatchString,
	"hexcolor":     regexp.MustCompile(`^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`).MatchString,
	"rgbcolor":     regexp.MustCompile(`^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$`).MatchString,
	"byte":         regexp.MustCompile(`^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$`).MatchString,
	"password":     func(string) bool { return true },
	"date":         isDate,
	"duration":     isDuration,
	"datetime":     isDateTime,
	"quantity":     func(s string) bool { _, err := api.ParseQuantity(s); return err == nil },
	"k8sshortname": func(s string) bool { return len(validation.IsDNS1123Label(s)) == 0 },
	"k8slongname":  func(s string) bool { return len(validation.IsDNS1123Subdomain(s)) == 0 },
}

// normalizeFormat drops dashes, as go-openapi's registry compares names.
func normalizeFormat(format string) string {
	return strings.ReplaceAll(format, "-", "")
}

// effectiveFormat is the format upstream validates with: formats it does not
// support for the schema's type are dropped (integer: int32, int64; number:
// float, double; string or untyped: the list above; other types: none).
func effectiveFormat(s *api.JSONSchemaProps, types []string) string {
	if s.Format == "" {
		return ""
	}
	typ := ""
	if len(types) == 1 {
		typ = types[0]
	}
	switch typ {
	case "", "string":
		if _, ok := stringFormats[normalizeFormat(s.Format)]; ok {
			return s.Format
		}
	case "integer":
		if s.Format == "int32" || s.Format == "int64" {
			return s.Format
		}
	case "number":
		if s.Format == "float" || s.Format == "double" {
			return s.Format
		}
	}
	return ""
}

// knownFormat says whether a string format is checked (numeric formats only
// matter to the type check).
func knownFormat(format string) bool {
	_, ok := stringFormats[normalizeFormat(format)]
	return ok
}

// checkFormat says whether s is valid in the (known) format.
func checkFormat(format, s string) bool {
	return stringFormats[normalizeFormat(format)](s)
}

// isURI accepts what Go's url.ParseRequestURI accepts: an absolute URI or an
// absolute path.
func isURI(s string) bool {
	_, err := url.ParseRequestURI(s)
	return err == nil
}

func isEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	return err == nil && addr.Address != ""
}

// hostnamePattern is RFC 1034 host names, with labels that may start with a
// digit and hold letters of any script, as go-openapi accepts.
var hostnamePattern = regexp.MustCompile(`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z0-9\p{S}\p{L}])(-?[a-zA-Z0-9\p{S}\p{L}]){1,62})$`)

func isHostname(s string) bool {
	if len(s) > 255 || !hostnamePattern.MatchString(s) {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) > 63 {
			return false
		}
	}
	return true
}

func isDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// timeOfDay is the part of an RFC 3339 date-time after the "T".
var timeOfDay = regexp.MustCompile(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`)

// isDateTime accepts an RFC 3339 date-time, the "T" and "Z" in either case.
func isDateTime(s string) bool {
	parts := strings.Split(strings.ToLower(s), "t")
	if len(s) < 4 || len(parts) < 2 || !isDate(parts[0]) {
		return false
	}
	m := timeOfDay.FindStringSubmatch(parts[1])
	return m != nil && m[1] <= "23" && m[2] <= "59" && m[3] <= "59"
}

// durationPart is one "<number> <unit>" of a duration such as "3 days 4h".
var durationPart = regexp.MustCompile(`((\d+)\s*([A-Za-zµ]+))`)

// durationUnits are the unit spellings go-openapi accepts beyond Go's own;
// the last of each group also matches as a prefix ("hours", "minutes").
var durationUnits = [][]string{
	{"ns", "nano"}, {"us", "µs", "micro"}, {"ms", "milli"}, {"s", "sec"},
	{"m", "min"}, {"h", "hr", "hour"}, {"d", "day"}, {"w", "wk", "week"},
}

// isDuration accepts a Go duration ("1h30m") or go-openapi's spelled-out
// form ("3 days").
func isDuration(s string) bool {
	if _, err := time.ParseDuration(s); err == nil {
		return true
	}
	for _, m := range durationPart.FindAllStringSubmatch(s, -1) {
		if _, err := strconv.Atoi(m[2]); err != nil {
			return false
		}
		unit := strings.ToLower(strings.TrimSpace(m[3]))
		for _, group := range durationUnits {
			last := len(group) - 1
			for i, spelling := range group {
				if (i == last && strings.HasPrefix(unit, spelling)) || strings.EqualFold(spelling, unit) {
					return true
				}
			}
		}
	}
	return false
}

// isbnDigits keeps an ISBN's digits (and a final X), dropping spaces and dashes.
func isbnDigits(s string) string {
	return strings.NewReplacer(" ", "", "-", "").Replace(s)
}

func isISBN10(s string) bool {
	d := isbnDigits(s)
	if !regexp.MustCompile(`^\d{9}[\dX]$`).MatchString(d) {
		return false
	}
	sum := 0
	for i := 0; i < 9; i++ {
		sum += int(d[i]-'0') * (i + 1)
	}
	if d[9] == 'X' {
		sum += 10 * 10
	} else {
		sum += int(d[9]-'0') * 10
	}
	return sum%11 == 0
}

func isISBN13(s string) bool {
	d := isbnDigits(s)
	if !regexp.MustCompile(`^\d{13}$`).MatchString(d) {
		return false
	}
	sum := 0
	for i := 0; i < 12; i++ {
		w := 1
		if i%2 == 1 {
			w = 3
		}
		sum += int(d[i]-'0') * w
	}
	return (10-sum%10)%10 == int(d[12]-'0')
}

// creditCardPattern is the card number ranges go-openapi accepts.
var creditCardPattern = regexp.MustCompile(`^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$`)

// isCreditCard checks the number's range and its Luhn checksum; other
// characters between the digits are ignored.
func isCreditCard(s string) bool {
	digits := regexp.MustCompile(`[^0-9]+`).ReplaceAllString(s, "")
	if !creditCardPattern.MatchString(digits) {
		return false
	}
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		n := int(digits[i] - '0')
		if double {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}
