package labels

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		in   string
		want string // canonical String()
		reqs []Requirement
	}{
		{in: "", want: ""},
		{in: "  \t ", want: ""},
		{in: "app=nginx", want: "app=nginx",
			reqs: []Requirement{{Key: "app", Operator: Equals, Values: []string{"nginx"}}}},
		{in: "app==nginx", want: "app==nginx",
			reqs: []Requirement{{Key: "app", Operator: DoubleEquals, Values: []string{"nginx"}}}},
		// Sorted by key, whatever the input order.
		{in: "tier!=db,app=nginx", want: "app=nginx,tier!=db",
			reqs: []Requirement{
				{Key: "app", Operator: Equals, Values: []string{"nginx"}},
				{Key: "tier", Operator: NotEquals, Values: []string{"db"}},
			}},
		// Values are a sorted set; blanks around tokens are allowed.
		{in: "env in ( staging , prod, prod )", want: "env in (prod,staging)",
			reqs: []Requirement{{Key: "env", Operator: In, Values: []string{"prod", "staging"}}}},
		{in: "env notin (dev)", want: "env notin (dev)",
			reqs: []Requirement{{Key: "env", Operator: NotIn, Values: []string{"dev"}}}},
		{in: "partition", want: "partition",
			reqs: []Requirement{{Key: "partition", Operator: Exists}}},
		{in: "!partition", want: "!partition",
			reqs: []Requirement{{Key: "partition", Operator: DoesNotExist}}},
		{in: " ! partition ", want: "!partition"},
		{in: "x in (foo,,baz),y,z notin ()", want: "x in (,baz,foo),y,z notin ()"},
		{in: "x in (,a)", want: "x in (,a)"},
		{in: "x in (a,)", want: "x in (,a)"},
		{in: "x in (,)", want: "x in ()"},
		// A missing exact value is the empty string.
		{in: "tier=", want: "tier=",
			reqs: []Requirement{{Key: "tier", Operator: Equals, Values: []string{""}}}},
		{in: "tier!=,app", want: "app,tier!="},
		// "in" and "notin" are keywords only where an operator is expected.
		{in: "in in (in,notin)", want: "in in (in,notin)"},
		{in: "notin=in", want: "notin=in"},
		{in: "notin", want: "notin"},
		{in: "!in", want: "!in"},
		{in: "example.com/app=web", want: "example.com/app=web"},
		{in: "a.b-c_d=X.y-z_0", want: "a.b-c_d=X.y-z_0"},
		{in: "replicas>3,weight<10", want: "replicas>3,weight<10",
			reqs: []Requirement{
				{Key: "replicas", Operator: GreaterThan, Values: []string{"3"}},
				{Key: "weight", Operator: LessThan, Values: []string{"10"}},
			}},
		// The same key twice: both requirements are kept, in a fixed order.
		{in: "a=1,a!=2", want: "a!=2,a=1"},
		{in: "a!=2,a=1", want: "a!=2,a=1"},
		{in: "a,b,a", want: "a,a,b"},
		{in: "a=b,\tc\n!=d", want: "a=b,c!=d"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sel, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got := sel.String(); got != tt.want {
				t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.want)
			}
			if tt.reqs != nil && !reflect.DeepEqual(sel.Requirements(), tt.reqs) {
				t.Errorf("Parse(%q).Requirements() = %#v, want %#v", tt.in, sel.Requirements(), tt.reqs)
			}
			if sel.Empty() != (tt.want == "") {
				t.Errorf("Parse(%q).Empty() = %v", tt.in, sel.Empty())
			}
		})
	}
}

// The messages are upstream's, word for word: clients (and students comparing
// with a real cluster) see them.
func TestParseErrors(t *testing.T) {
	const keyRule = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	const valueRule = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
	tests := []struct {
		in, want string
	}{
		{",", "found ',', expected: !, identifier, or 'end of string'"},
		{"a,", "found '', expected: identifier after ','"},
		{"a,,b", "found ',', expected: identifier after ','"},
		{"a=b c", "found 'c', expected: ',' or 'end of string'"},
		{"a=b=c", "found '=', expected: ',' or 'end of string'"},
		{"!a=b", "found '=', expected: ',' or 'end of string'"},
		{"!", "unable to parse requirement: found '', expected: identifier"},
		{"!=a", "found '!=', expected: !, identifier, or 'end of string'"},
		{"a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"},
		{"a in", "unable to parse requirement: found '' expected: '('"},
		{"a in b", "unable to parse requirement: found 'b' expected: '('"},
		{"a in (b", "unable to parse requirement: found '', expected: ',' or ')'"},
		{"a in (b c)", "unable to parse requirement: found 'c', expected: ',' or ')'"},
		{"a in (b,=)", "unable to parse requirement: found '=', expected: ',', or identifier"},
		{"a in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"},
		{"a=(b)", "unable to parse requirement: found '(', expected: identifier"},
		{"a$=b", `unable to parse requirement: <nil>: Invalid value: "a$": ` + keyRule},
		{"a/b/c", `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`},
		{"/a", `unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty`},
		{"Example.com/a", `unable to parse requirement: <nil>: Invalid value: "Example.com/a": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"a/", `unable to parse requirement: <nil>: Invalid value: "a/": name part must be non-empty; ` + keyRule},
		{strings.Repeat("k", 64), `unable to parse requirement: <nil>: Invalid value: "` + strings.Repeat("k", 64) + `": name part must be no more than 63 characters`},
		{"a=-b", `unable to parse requirement: values[0][a]: Invalid value: "-b": ` + valueRule},
		{"a=" + strings.Repeat("v", 64), `unable to parse requirement: values[0][a]: Invalid value: "` + strings.Repeat("v", 64) + `": must be no more than 63 characters`},
		{"a in (ok,b_)", `unable to parse requirement: values[0][a]: Invalid value: "b_": ` + valueRule},
		{"a>b", `unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`},
		{"a<", `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`},
		// Several problems in one requirement are reported together.
		{"a>-1", `unable to parse requirement: values[0][a]: Invalid value: "-1": ` + valueRule},
		{"a>1.5_", `unable to parse requirement: [values[0]: Invalid value: "1.5_": for 'Gt', 'Lt' operators, the value must be an integer, values[0][a]: Invalid value: "1.5_": ` + valueRule + "]"},
		// A NUL byte is an ordinary (invalid) character, not the end of input.
		{"a\x00b", `unable to parse requirement: <nil>: Invalid value: "a\x00b": ` + keyRule},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sel, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %q, want error %q", tt.in, sel, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%q) error:\n got %s\nwant %s", tt.in, err, tt.want)
			}
		})
	}
}
