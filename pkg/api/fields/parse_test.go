package fields

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		in   string
		want string // canonical String()
		reqs []Requirement
	}{
		{in: "", want: ""},
		{in: ",,", want: ""},
		{in: "metadata.name=x", want: "metadata.name=x",
			reqs: []Requirement{{Field: "metadata.name", Operator: Equals, Value: "x"}}},
		// "==" means "=".
		{in: "status.phase==Running", want: "status.phase=Running",
			reqs: []Requirement{{Field: "status.phase", Operator: Equals, Value: "Running"}}},
		// An empty value is allowed: "spec.nodeName!=" means "scheduled".
		{in: "spec.nodeName!=", want: "spec.nodeName!=",
			reqs: []Requirement{{Field: "spec.nodeName", Operator: NotEquals, Value: ""}}},
		{in: "status.phase==Running,spec.nodeName!=,metadata.name=x",
			want: "metadata.name=x,spec.nodeName!=,status.phase=Running"},
		// Escaped separators belong to the value.
		{in: `metadata.name=a\,b\=c\\d`, want: `metadata.name=a\,b\=c\\d`,
			reqs: []Requirement{{Field: "metadata.name", Operator: Equals, Value: `a,b=c\d`}}},
		{in: `a=x\,,b=y`, want: `a=x\,,b=y`,
			reqs: []Requirement{{Field: "a", Operator: Equals, Value: "x,"}, {Field: "b", Operator: Equals, Value: "y"}}},
		// The first operator ends the field; "!=" and "==" win over "=".
		{in: "a!=b", want: "a!=b", reqs: []Requirement{{Field: "a", Operator: NotEquals, Value: "b"}}},
		{in: "a==b", want: "a=b", reqs: []Requirement{{Field: "a", Operator: Equals, Value: "b"}}},
		{in: "a!b=c", want: "a!b=c", reqs: []Requirement{{Field: "a!b", Operator: Equals, Value: "c"}}},
		// Blanks are not trimmed, as upstream.
		{in: "status.phase = Running", want: "status.phase = Running",
			reqs: []Requirement{{Field: "status.phase ", Operator: Equals, Value: " Running"}}},
		// A bare "=" (empty field and value) is dropped, as upstream drops it.
		{in: "=", want: ""},
		{in: "a=b,=", want: "a=b"},
		// An empty field with a value is kept; ValidateFor rejects it.
		{in: "=x", want: "=x", reqs: []Requirement{{Field: "", Operator: Equals, Value: "x"}}},
		{in: "involvedObject.name=web-0,involvedObject.namespace=default",
			want: "involvedObject.name=web-0,involvedObject.namespace=default"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sel, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got := sel.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if tt.reqs != nil && !reflect.DeepEqual(sel.Requirements(), tt.reqs) {
				t.Errorf("Requirements() = %#v, want %#v", sel.Requirements(), tt.reqs)
			}
			if sel.Empty() != (tt.want == "") {
				t.Errorf("Empty() = %v", sel.Empty())
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"metadata.name", "invalid selector: 'metadata.name'; can't understand 'metadata.name'"},
		{"a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"},
		{" ", "invalid selector: ' '; can't understand ' '"},
		{"a!==", "invalid field selector: unescaped character in value: 61"},
		{"a===b", "invalid field selector: unescaped character in value: 61"},
		{`a=b\`, `invalid field selector: invalid escape sequence: \`},
		{`a=b\n`, `invalid field selector: invalid escape sequence: \n`},
		{`a=\é`, `invalid field selector: invalid escape sequence: \é`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sel, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %q, want error", tt.in, sel)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestMatches(t *testing.T) {
	running := Set{"metadata.name": "web-0", "spec.nodeName": "node-1", "status.phase": "Running"}
	pending := Set{"metadata.name": "web-1", "status.phase": "Pending"}
	tests := []struct {
		selector string
		fields   Set
		want     bool
	}{
		{"", running, true},
		{"", nil, true},
		{"metadata.name=web-0", running, true},
		{"metadata.name=web-0", pending, false},
		{"status.phase==Running", running, true},
		{"status.phase!=Running", pending, true},
		{"status.phase!=Running", running, false},
		{"spec.nodeName=", pending, true}, // a missing field is ""
		{"spec.nodeName=", running, false},
		{"spec.nodeName!=", running, true},
		{"spec.nodeName!=", pending, false},
		{"spec.nodeName=node-1,status.phase=Running", running, true},
		{"spec.nodeName=node-1,status.phase=Pending", running, false},
		{`metadata.name=a\,b`, Set{"metadata.name": "a,b"}, true},
	}
	for _, tt := range tests {
		sel, err := Parse(tt.selector)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.selector, err)
		}
		if got := sel.Matches(tt.fields); got != tt.want {
			t.Errorf("Parse(%q).Matches(%v) = %v, want %v", tt.selector, tt.fields, got, tt.want)
		}
	}
}

func TestRequiresExactMatch(t *testing.T) {
	tests := []struct {
		selector, field string
		wantValue       string
		wantFound       bool
	}{
		{"spec.nodeName=node-1,status.phase!=Failed", "spec.nodeName", "node-1", true},
		{"spec.nodeName==node-1", "spec.nodeName", "node-1", true},
		{"spec.nodeName=", "spec.nodeName", "", true},
		{"spec.nodeName!=node-1", "spec.nodeName", "", false},
		{"status.phase=Running", "spec.nodeName", "", false},
		{"", "spec.nodeName", "", false},
	}
	for _, tt := range tests {
		sel, err := Parse(tt.selector)
		if err != nil {
			t.Fatal(err)
		}
		value, found := sel.RequiresExactMatch(tt.field)
		if value != tt.wantValue || found != tt.wantFound {
			t.Errorf("Parse(%q).RequiresExactMatch(%q) = %q, %v; want %q, %v",
				tt.selector, tt.field, value, found, tt.wantValue, tt.wantFound)
		}
	}
}

func TestEscapeValue(t *testing.T) {
	tests := []struct{ literal, escaped string }{
		{"", ""},
		{"plain", "plain"},
		{`a,b`, `a\,b`},
		{`a=b`, `a\=b`},
		{`a\b`, `a\\b`},
		{`\,=`, `\\\,\=`},
	}
	for _, tt := range tests {
		if got := EscapeValue(tt.literal); got != tt.escaped {
			t.Errorf("EscapeValue(%q) = %q, want %q", tt.literal, got, tt.escaped)
		}
		got, err := UnescapeValue(tt.escaped)
		if err != nil || got != tt.literal {
			t.Errorf("UnescapeValue(%q) = %q, %v; want %q", tt.escaped, got, err, tt.literal)
		}
	}
}

func TestSelectorFromSet(t *testing.T) {
	sel := SelectorFromSet(Set{"status.phase": "Running", "metadata.name": "a,b"})
	if got, want := sel.String(), `metadata.name=a\,b,status.phase=Running`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if !sel.Matches(Set{"metadata.name": "a,b", "status.phase": "Running"}) {
		t.Error("does not match its own set")
	}
	if !SelectorFromSet(nil).Empty() || !Everything().Empty() {
		t.Error("a nil set and Everything should be empty")
	}
	if got := OneTermEqualSelector("spec.nodeName", "n1").String(); got != "spec.nodeName=n1" {
		t.Errorf("OneTermEqualSelector = %q", got)
	}
}

func TestValidateFor(t *testing.T) {
	podFields := []string{"metadata.name", "metadata.namespace", "spec.nodeName", "status.phase"}
	tests := []struct {
		selector string
		want     string // "" for no error
	}{
		{"", ""},
		{"spec.nodeName=n1,status.phase!=Failed", ""},
		{"spec.foo=bar", "field label not supported: spec.foo"},
		{"metadata.name=x,spec.foo=bar,aaa=1", "field label not supported: aaa"},
		{"status.phase = Running", "field label not supported: status.phase "},
	}
	for _, tt := range tests {
		sel, err := Parse(tt.selector)
		if err != nil {
			t.Fatal(err)
		}
		err = ValidateFor(sel, podFields)
		if tt.want == "" {
			if err != nil {
				t.Errorf("ValidateFor(%q): %v", tt.selector, err)
			}
			continue
		}
		var unsupported *UnsupportedFieldError
		if !errors.As(err, &unsupported) {
			t.Fatalf("ValidateFor(%q) = %v, want an *UnsupportedFieldError", tt.selector, err)
		}
		if err.Error() != tt.want {
			t.Errorf("ValidateFor(%q) = %q, want %q", tt.selector, err, tt.want)
		}
	}
}
