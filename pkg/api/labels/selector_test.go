package labels

import (
	"reflect"
	"testing"

	"kplane/pkg/api"
)

func TestMatches(t *testing.T) {
	web := map[string]string{"app": "nginx", "tier": "frontend", "env": "prod", "replicas": "5", "empty": ""}
	tests := []struct {
		selector string
		labels   map[string]string
		want     bool
	}{
		{"", nil, true},
		{"", web, true},
		{"app=nginx", web, true},
		{"app==nginx", web, true},
		{"app=apache", web, false},
		{"app=nginx", nil, false},
		{"app!=apache", web, true},
		{"app!=nginx", web, false},
		{"missing!=x", web, true}, // absent counts as "not equal"
		{"env in (prod,staging)", web, true},
		{"env in (dev)", web, false},
		{"missing in (a)", web, false},
		{"env notin (dev)", web, true},
		{"env notin (prod)", web, false},
		{"missing notin (a)", web, true}, // absent counts as "not in"
		{"missing notin ()", web, true},  // … even when "" is among the values
		{"missing!=", web, true},
		{"empty!=", web, false},
		{"tier", web, true},
		{"missing", web, false},
		{"!missing", web, true},
		{"!tier", web, false},
		{"empty", web, true},
		{"empty=", web, true},
		{"empty in ()", web, true},
		{"empty notin ()", web, false},
		{"missing=", web, false}, // "=" needs the label present, even for ""
		{"app=nginx,tier=frontend", web, true},
		{"app=nginx,tier=backend", web, false},
		{"app=nginx,!tier", web, false},
		{"replicas>4", web, true},
		{"replicas>5", web, false},
		{"replicas<6", web, true},
		{"replicas<5", web, false},
		{"app>1", web, false},     // label is not an integer
		{"missing<1", web, false}, // label absent
	}
	for _, tt := range tests {
		sel, err := Parse(tt.selector)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.selector, err)
		}
		if got := sel.Matches(tt.labels); got != tt.want {
			t.Errorf("Parse(%q).Matches(%v) = %v, want %v", tt.selector, tt.labels, got, tt.want)
		}
	}
}

func TestNewRequirementErrors(t *testing.T) {
	tests := []struct {
		name   string
		key    string
		op     Operator
		values []string
		want   string
	}{
		{"in without values", "a", In, nil,
			"values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"},
		{"notin with empty list", "a", NotIn, []string{},
			"values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"},
		{"exists with values", "a", Exists, []string{"x"},
			`values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist`},
		{"equals with two values", "a", Equals, []string{"x", "y"},
			`values: Invalid value: []string{"x", "y"}: exact-match compatibility requires one single value`},
		{"gt with two values", "a", GreaterThan, []string{"1", "2"},
			`values: Invalid value: []string{"1", "2"}: for 'Gt', 'Lt' operators, exactly one value is required`},
		{"unknown operator", "a", Operator("like"), []string{"x"},
			`operator: Unsupported value: "like": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"`},
		{"bad key and bad value", "-a", Equals, []string{"x y"},
			`[key: Invalid value: "-a": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), ` +
				`values[0][-a]: Invalid value: "x y": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRequirement(tt.key, tt.op, tt.values)
			if err == nil {
				t.Fatalf("NewRequirement(%q, %q, %q) succeeded, want error", tt.key, tt.op, tt.values)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestNewRequirementNormalizesValues(t *testing.T) {
	in := []string{"b", "a", "b"}
	r, err := NewRequirement("k", In, in)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b"}; !reflect.DeepEqual(r.Values, want) {
		t.Errorf("Values = %q, want %q", r.Values, want)
	}
	if !reflect.DeepEqual(in, []string{"b", "a", "b"}) {
		t.Errorf("NewRequirement modified its input: %q", in)
	}
	if got := r.String(); got != "k in (a,b)" {
		t.Errorf("String() = %q", got)
	}
}

func TestFromLabelSelector(t *testing.T) {
	tests := []struct {
		name       string
		ls         *api.LabelSelector
		wantString string
		wantEmpty  bool
		matches    map[string]string
		notMatches map[string]string
	}{
		{name: "nil matches nothing", ls: nil, wantString: "",
			notMatches: map[string]string{"app": "web"}},
		{name: "empty matches everything", ls: &api.LabelSelector{}, wantString: "", wantEmpty: true,
			matches: map[string]string{"app": "web"}},
		{name: "matchLabels", ls: &api.LabelSelector{MatchLabels: map[string]string{"tier": "web", "app": "nginx"}},
			wantString: "app=nginx,tier=web",
			matches:    map[string]string{"app": "nginx", "tier": "web", "extra": "x"},
			notMatches: map[string]string{"app": "nginx"}},
		{name: "matchExpressions", ls: &api.LabelSelector{
			MatchLabels: map[string]string{"app": "nginx"},
			MatchExpressions: []api.LabelSelectorRequirement{
				{Key: "tier", Operator: "In", Values: []string{"web", "frontend"}},
				{Key: "env", Operator: "NotIn", Values: []string{"dev"}},
				{Key: "canary", Operator: "DoesNotExist"},
				{Key: "team", Operator: "Exists"},
			}},
			wantString: "app=nginx,!canary,env notin (dev),team,tier in (frontend,web)",
			matches:    map[string]string{"app": "nginx", "tier": "web", "team": "a"},
			notMatches: map[string]string{"app": "nginx", "tier": "web", "team": "a", "canary": "true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := FromLabelSelector(tt.ls)
			if err != nil {
				t.Fatal(err)
			}
			if got := sel.String(); got != tt.wantString {
				t.Errorf("String() = %q, want %q", got, tt.wantString)
			}
			if sel.Empty() != tt.wantEmpty {
				t.Errorf("Empty() = %v, want %v", sel.Empty(), tt.wantEmpty)
			}
			if tt.matches != nil && !sel.Matches(tt.matches) {
				t.Errorf("does not match %v", tt.matches)
			}
			if tt.notMatches != nil && sel.Matches(tt.notMatches) {
				t.Errorf("matches %v", tt.notMatches)
			}
		})
	}
}

func TestFromLabelSelectorErrors(t *testing.T) {
	tests := []struct {
		name string
		ls   *api.LabelSelector
		want string
	}{
		{"unknown operator", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "in"}}},
			`"in" is not a valid label selector operator`},
		{"In with empty values", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "In", Values: []string{}}}},
			"values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"},
		{"Exists with values", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "Exists", Values: []string{"x"}}}},
			`values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist`},
		{"bad matchLabels value", &api.LabelSelector{MatchLabels: map[string]string{"a": "has space"}},
			`values[0][a]: Invalid value: "has space": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromLabelSelector(tt.ls)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestSelectorFromSet(t *testing.T) {
	sel := SelectorFromSet(map[string]string{"tier": "web", "app": "nginx"})
	if got, want := sel.String(), "app=nginx,tier=web"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if !sel.Matches(map[string]string{"app": "nginx", "tier": "web", "x": "y"}) {
		t.Error("does not match a superset of its labels")
	}
	if sel.Matches(map[string]string{"app": "nginx"}) {
		t.Error("matches a subset of its labels")
	}
	for _, set := range []map[string]string{nil, {}} {
		if s := SelectorFromSet(set); !s.Empty() || !s.Matches(nil) {
			t.Errorf("SelectorFromSet(%v) should select everything", set)
		}
	}
}

func TestEverythingAndNothing(t *testing.T) {
	labels := map[string]string{"a": "b"}
	if e := Everything(); !e.Empty() || !e.Matches(labels) || !e.Matches(nil) || e.String() != "" || e.Requirements() != nil {
		t.Error("Everything() should be empty, render as \"\" and match all")
	}
	if n := Nothing(); n.Empty() || n.Matches(labels) || n.Matches(nil) || n.String() != "" || n.Requirements() != nil {
		t.Error("Nothing() should be non-empty, render as \"\" and match none")
	}
}

func TestRequirementsIsACopy(t *testing.T) {
	sel, err := Parse("a in (x,y)")
	if err != nil {
		t.Fatal(err)
	}
	reqs := sel.Requirements()
	reqs[0].Values[0] = "changed"
	reqs[0].Key = "changed"
	if got := sel.String(); got != "a in (x,y)" {
		t.Errorf("mutating Requirements() changed the selector to %q", got)
	}
}
