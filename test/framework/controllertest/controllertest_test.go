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

func TestRecorderExpectEventsComparesTheEventsSinceTheLastCall(t *testing.T) {
	r := &Recorder{}
	r.Event(nil, api.EventTypeNormal, "SuccessfulCreate", "Created pod: web-1")
	r.Eventf(nil, api.EventTypeWarning, "FailedCreate", "Error creating: %s", "quota")
	r.ExpectEvents(t, "Normal SuccessfulCreate Created pod: web-1", "Warning FailedCreate Error creating: quota")
	r.ExpectEvents(t) // nothing since

	r.Event(nil, api.EventTypeNormal, "SuccessfulDelete", "Deleted pod: web-1")
	rec := &failureRecorder{TB: t}
	r.ExpectEvents(rec, "Normal SuccessfulDelete Deleted pod: web-2")
	if !rec.failed {
		t.Error("ExpectEvents passed with a different message")
	}
}

// failureRecorder notes that a check failed instead of failing the test.
type failureRecorder struct {
	testing.TB
	failed bool
}

func (f *failureRecorder) Helper()               {}
func (f *failureRecorder) Errorf(string, ...any) { f.failed = true }
