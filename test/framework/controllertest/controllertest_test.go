package controllertest

import (
	"testing"

	"kplane/pkg/api"
)

// An empty field matches anything; Message is exact, MessagePrefix a prefix.
func TestEventMatch(t *testing.T) {
	ev := &api.Event{
		InvolvedObject: api.ObjectReference{Kind: "ReplicaSet", Name: "ng-rs"},
		Reason:         "SuccessfulCreate",
		Message:        "Created pod: ng-rs-abcde",
		Source:         api.EventSource{Component: "replicaset-controller"},
	}
	for _, tc := range []struct {
		name string
		m    EventMatch
		want bool
	}{
		{"empty matches all", EventMatch{}, true},
		{"every field", EventMatch{Component: "replicaset-controller", Kind: "ReplicaSet", Name: "ng-rs",
			Reason: "SuccessfulCreate", Message: "Created pod: ng-rs-abcde", MessagePrefix: "Created pod: "}, true},
		{"prefix", EventMatch{Reason: "SuccessfulCreate", MessagePrefix: "Created pod: ng-rs"}, true},
		{"prefix is not a substring", EventMatch{MessagePrefix: "pod: ng-rs"}, false},
		{"exact message is not a prefix", EventMatch{Message: "Created pod: "}, false},
		{"other component", EventMatch{Component: "job-controller"}, false},
		{"other kind", EventMatch{Kind: "Deployment"}, false},
		{"other name", EventMatch{Name: "web"}, false},
		{"other reason", EventMatch{Reason: "SuccessfulDelete"}, false},
	} {
		if got := tc.m.matches(ev); got != tc.want {
			t.Errorf("%s: %+v matches = %v, want %v", tc.name, tc.m, got, tc.want)
		}
	}
}
