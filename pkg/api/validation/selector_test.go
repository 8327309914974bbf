package validation

import (
	"testing"

	"kplane/pkg/api"
)

func TestValidateLabelSelector(t *testing.T) {
	tests := []struct {
		name string
		sel  *api.LabelSelector
		want []fieldErr
	}{
		{"nil", nil, nil},
		{"labels and expressions", &api.LabelSelector{
			MatchLabels: map[string]string{"app": "web"},
			MatchExpressions: []api.LabelSelectorRequirement{
				{Key: "tier", Operator: "In", Values: []string{"a", "b"}},
				{Key: "canary", Operator: "DoesNotExist"},
			},
		}, nil},
		{"bad matchLabels value", &api.LabelSelector{MatchLabels: map[string]string{"app": "-web"}}, []fieldErr{{invalid, "spec.selector.matchLabels"}}},
		{"In without values", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "In"}}},
			[]fieldErr{{required, "spec.selector.matchExpressions[0].values"}}},
		{"Exists with values", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "Exists", Values: []string{"x"}}}},
			[]fieldErr{{forbidden, "spec.selector.matchExpressions[0].values"}}},
		{"unknown operator", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "Equals", Values: []string{"x"}}}},
			[]fieldErr{{invalid, "spec.selector.matchExpressions[0].operator"}}},
		{"bad key and value", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "a b", Operator: "NotIn", Values: []string{"ok", "not ok"}}}},
			[]fieldErr{{invalid, "spec.selector.matchExpressions[0].key"}, {invalid, "spec.selector.matchExpressions[0].values[1]"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectFields(t, ValidateLabelSelector(tt.sel, "spec.selector"), tt.want...)
		})
	}
}

func TestSelectorMatches(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "front"}
	req := func(key, op string, values ...string) *api.LabelSelector {
		return &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}}
	}
	tests := []struct {
		name string
		sel  *api.LabelSelector
		want bool
	}{
		{"nil matches nothing", nil, false},
		{"empty matches everything", &api.LabelSelector{}, true},
		{"matchLabels subset", &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, true},
		{"matchLabels mismatch", &api.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, false},
		{"matchLabels missing", &api.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, false},
		{"In", req("tier", "In", "back", "front"), true},
		{"In missing key", req("env", "In", "prod"), false},
		{"NotIn", req("tier", "NotIn", "back"), true},
		{"NotIn excluded", req("tier", "NotIn", "front"), false},
		{"NotIn missing key", req("env", "NotIn", "prod"), true},
		{"Exists", req("app", "Exists"), true},
		{"Exists missing", req("env", "Exists"), false},
		{"DoesNotExist", req("env", "DoesNotExist"), true},
		{"DoesNotExist present", req("app", "DoesNotExist"), false},
	}
	for _, tt := range tests {
		if got := selectorMatches(tt.sel, labels); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
