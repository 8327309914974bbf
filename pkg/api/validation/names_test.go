package validation

import (
	"strings"
	"testing"
)

func TestNameFormats(t *testing.T) {
	subdomainMsg := "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	labelMsg := "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	tests := []struct {
		name  string
		check func(string) []string
		value string
		want  []string // nil means valid
	}{
		{"subdomain ok", IsDNS1123Subdomain, "nginx-deploy.v1", nil},
		{"subdomain upper/underscore", IsDNS1123Subdomain, "Foo_bar", []string{subdomainMsg}},
		{"subdomain empty", IsDNS1123Subdomain, "", []string{subdomainMsg}},
		{"subdomain trailing dash", IsDNS1123Subdomain, "web-", []string{subdomainMsg}},
		{"subdomain 253", IsDNS1123Subdomain, strings.Repeat("a", 253), nil},
		{"subdomain 254", IsDNS1123Subdomain, strings.Repeat("a", 254), []string{"must be no more than 253 characters"}},
		{"label ok", IsDNS1123Label, "kube-system", nil},
		{"label digit start ok", IsDNS1123Label, "123-abc", nil},
		{"label dots", IsDNS1123Label, "a.b", []string{"must not contain dots"}},
		{"label bad chars", IsDNS1123Label, "My_ns", []string{labelMsg}},
		{"label 64", IsDNS1123Label, strings.Repeat("a", 64), []string{"must be no more than 63 characters"}},
		{"dns1035 ok", IsDNS1035Label, "nginx-ss", nil},
		{"dns1035 digit start", IsDNS1035Label, "1web", []string{"a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"}},
		{"qualified plain", IsQualifiedName, "app", nil},
		{"qualified prefixed", IsQualifiedName, "app.kubernetes.io/name", nil},
		{"qualified mixed case", IsQualifiedName, "My.Name_1", nil},
		{"qualified empty prefix", IsQualifiedName, "/name", []string{"prefix part must be non-empty"}},
		{"qualified bad prefix", IsQualifiedName, "Example.com/name", []string{"prefix part " + subdomainMsg}},
		{"qualified two slashes", IsQualifiedName, "a/b/c", []string{"a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}},
		{"qualified empty name", IsQualifiedName, "example.com/", []string{
			"name part must be non-empty",
			"name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
		}},
		{"qualified name too long", IsQualifiedName, strings.Repeat("a", 64), []string{"name part must be no more than 63 characters"}},
		{"label value empty ok", IsValidLabelValue, "", nil},
		{"label value ok", IsValidLabelValue, "my_value-1.2", nil},
		{"label value space", IsValidLabelValue, "a b", []string{"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"}},
		{"label value too long", IsValidLabelValue, strings.Repeat("v", 64), []string{"must be no more than 63 characters"}},
		{"port name ok", IsValidPortName, "http-web", nil},
		{"port name too long", IsValidPortName, "abcdefghijklmnop", []string{"must be no more than 15 characters"}},
		{"port name upper", IsValidPortName, "HTTP", []string{
			"must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
			"must contain at least one letter (a-z)",
		}},
		{"port name digits", IsValidPortName, "8080", []string{"must contain at least one letter (a-z)"}},
		{"port name double hyphen", IsValidPortName, "a--b", []string{"must not contain consecutive hyphens"}},
		{"port name edge hyphen", IsValidPortName, "-web", []string{"must not begin or end with a hyphen"}},
		{"config key ok", IsConfigMapKey, "game.properties", nil},
		{"config key dot", IsConfigMapKey, ".", []string{"must not be '.'"}},
		{"config key dotdot", IsConfigMapKey, "..", []string{"must not be '..'"}},
		{"config key dotdot prefix", IsConfigMapKey, "..data", []string{"must not start with '..'"}},
		{"config key slash", IsConfigMapKey, "a/b", []string{"a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"}},
		{"percent ok", IsValidPercent, "25%", nil},
		{"percent bad", IsValidPercent, "25", []string{"a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"}},
		{"env ok", IsEnvVarName, "MY_VAR.1-x", nil},
		{"env equals", IsEnvVarName, "A=B", []string{"a valid environment variable name must consist only of printable ASCII characters other than '='"}},
		{"path segment ok", IsValidPathSegmentName, "system:controller:job", nil},
		{"path segment dotdot", IsValidPathSegmentName, "..", []string{"may not be '..'"}},
		{"path segment slash", IsValidPathSegmentName, "a/b%", []string{"may not contain '/'", "may not contain '%'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.check(tt.value)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") || (got == nil) != (tt.want == nil) {
				t.Errorf("check(%q) = %q, want %q", tt.value, got, tt.want)
			}
		})
	}
}

func TestIsValidPortNum(t *testing.T) {
	for port, valid := range map[int]bool{0: false, 1: true, 80: true, 65535: true, 65536: false, -1: false} {
		got := IsValidPortNum(port)
		if (got == nil) != valid {
			t.Errorf("IsValidPortNum(%d) = %q, want valid=%v", port, got, valid)
		}
		if !valid && got[0] != "must be between 1 and 65535, inclusive" {
			t.Errorf("IsValidPortNum(%d) message = %q", port, got[0])
		}
	}
}

func TestNameFuncsAcceptGenerateNamePrefixes(t *testing.T) {
	tests := []struct {
		fn     ValidateNameFunc
		name   string
		prefix bool
		valid  bool
	}{
		{NameIsDNSSubdomain, "web-", true, true},
		{NameIsDNSSubdomain, "web-", false, false},
		{NameIsDNSLabel, "nginx-ss-", true, true},
		{NameIsDNSLabel, "a.b-", true, false},
		{NameIsDNS1035Label, "svc-", true, true},
		{NameIsDNS1035Label, "1svc-", true, false},
		{NameIsPathSegment, "..", true, true},
		{NameIsPathSegment, "..", false, false},
	}
	for _, tt := range tests {
		if got := tt.fn(tt.name, tt.prefix); (len(got) == 0) != tt.valid {
			t.Errorf("name %q prefix=%v: got %q, want valid=%v", tt.name, tt.prefix, got, tt.valid)
		}
	}
}
