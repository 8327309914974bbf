package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/test/framework"
)

// These tests cover events.k8s.io/v1: the core/v1 Events, served from the
// same storage under their newer field names, as upstream does.

const (
	coreEvents   = "/api/v1/namespaces/default/events"
	eventsV1Path = "/apis/events.k8s.io/v1/namespaces/default/events"
)

// TestEventsV1ReadsCoreEvents: an Event written through core/v1 is the same
// object through events.k8s.io/v1 — same uid and resourceVersion — with
// involvedObject as regarding, message as note, and the core-only fields
// as deprecated*.
func TestEventsV1ReadsCoreEvents(t *testing.T) {
	a := framework.StartAPIServer(t)
	core := `{"apiVersion":"v1","kind":"Event","metadata":{"name":"web.1"},
		"involvedObject":{"kind":"Pod","namespace":"default","name":"web","apiVersion":"v1"},
		"reason":"Scheduled","message":"Successfully assigned default/web to node1","type":"Normal",
		"source":{"component":"default-scheduler"},"count":3,
		"firstTimestamp":"2026-01-02T03:04:05Z","lastTimestamp":"2026-01-02T03:05:05Z"}`
	r := a.Do(t, "POST", coreEvents, []byte(core))
	var created api.Event
	if r.Code != 201 || json.Unmarshal(r.Body, &created) != nil {
		t.Fatalf("create core event: %d %s", r.Code, r.Body)
	}

	r = a.Do(t, "GET", eventsV1Path+"/web.1", nil)
	var ev api.EventsV1Event
	if r.Code != 200 || json.Unmarshal(r.Body, &ev) != nil {
		t.Fatalf("get through events.k8s.io/v1: %d %s", r.Code, r.Body)
	}
	if ev.APIVersion != "events.k8s.io/v1" || ev.UID != created.UID || ev.ResourceVersion != created.ResourceVersion ||
		ev.Note != created.Message || ev.Regarding.Name != "web" || ev.DeprecatedCount != 3 ||
		ev.DeprecatedSource.Component != "default-scheduler" || !ev.DeprecatedFirstTimestamp.Equal(created.FirstTimestamp.Time) {
		t.Errorf("events.k8s.io/v1 form of the core event:\n%s", r.Body)
	}
	for _, coreName := range []string{`"message"`, `"involvedObject"`, `"count"`, `"reportingComponent"`} {
		if strings.Contains(string(r.Body), coreName) {
			t.Errorf("the events.k8s.io/v1 form carries the core field %s:\n%s", coreName, r.Body)
		}
	}

	// A list with a field selector on the new names.
	r = a.Do(t, "GET", eventsV1Path+"?fieldSelector=regarding.name%3Dweb,reason%3DScheduled", nil)
	if r.Code != 200 || !strings.Contains(string(r.Body), `"kind":"EventList","apiVersion":"events.k8s.io/v1"`) ||
		strings.Count(string(r.Body), `"note":`) != 1 {
		t.Errorf("list by regarding.name: %d %s", r.Code, r.Body)
	}
	r = a.Do(t, "GET", eventsV1Path+"?fieldSelector=involvedObject.name%3Dweb", nil)
	if r.Code != 400 {
		t.Errorf("a core field name in an events.k8s.io/v1 selector: %d %s, want 400", r.Code, r.Body)
	}
}

// TestEventsV1WritesCoreEvents: an Event created through events.k8s.io/v1
// is stored once and read back through core/v1 under the core names; a
// watch on either API sees it in its own form.
func TestEventsV1WritesCoreEvents(t *testing.T) {
	a := framework.StartAPIServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp := a.Stream(t, ctx, eventsV1Path+"?watch=1")
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)

	v1 := `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"web.2"},
		"eventTime":"2026-01-02T03:04:05.000000Z","reportingController":"example.com/operator","reportingInstance":"operator-0",
		"action":"Reconcile","reason":"Configured","note":"configured the web pod","type":"Normal",
		"regarding":{"kind":"Pod","namespace":"default","name":"web","apiVersion":"v1"}}`
	r := a.Do(t, "POST", eventsV1Path, []byte(v1))
	var created api.EventsV1Event
	if r.Code != 201 || json.Unmarshal(r.Body, &created) != nil {
		t.Fatalf("create through events.k8s.io/v1: %d %s", r.Code, r.Body)
	}
	if created.Note != "configured the web pod" || created.ReportingController != "example.com/operator" {
		t.Errorf("create answered:\n%s", r.Body)
	}

	r = a.Do(t, "GET", coreEvents+"/web.2", nil)
	var core api.Event
	if r.Code != 200 || json.Unmarshal(r.Body, &core) != nil {
		t.Fatalf("get through core/v1: %d %s", r.Code, r.Body)
	}
	if core.APIVersion != "v1" || core.UID != created.UID || core.Message != "configured the web pod" ||
		core.InvolvedObject.Name != "web" || core.ReportingController != "example.com/operator" || core.Action != "Reconcile" {
		t.Errorf("core/v1 form of the events.k8s.io/v1 event:\n%s", r.Body)
	}

	if !lines.Scan() {
		t.Fatalf("watch ended: %v", lines.Err())
	}
	var event struct {
		Type   string            `json:"type"`
		Object api.EventsV1Event `json:"object"`
	}
	if err := json.Unmarshal(lines.Bytes(), &event); err != nil || event.Type != "ADDED" ||
		event.Object.APIVersion != "events.k8s.io/v1" || event.Object.Note != "configured the web pod" {
		t.Errorf("watch event: %s (%v)", lines.Bytes(), err)
	}

	// A merge patch in the new names: a series may be added, the note may not change.
	series := `{"series":{"count":2,"lastObservedTime":"2026-01-02T03:09:05.000000Z"}}`
	r = a.Do(t, "PATCH", eventsV1Path+"/web.2", []byte(series), "Content-Type", "application/merge-patch+json")
	if r.Code != 200 || !strings.Contains(string(r.Body), `"series":{"count":2`) {
		t.Errorf("patch series: %d %s", r.Code, r.Body)
	}
	got := refusalOf(t, a.Do(t, "PATCH", eventsV1Path+"/web.2", []byte(`{"note":"changed"}`), "Content-Type", "application/merge-patch+json"))
	want := refusal{code: 422, reason: "Invalid",
		message: `Event.events.k8s.io "web.2" is invalid: message: Invalid value: "changed": field is immutable`,
		fields:  []string{"message"}}
	if got.String() != want.String() {
		t.Errorf("patch note:\ngot  %s\nwant %s", got, want)
	}
}

// TestEventsV1Validation: events.k8s.io/v1 asks more of a new Event than
// core/v1 does, and reports every problem at once, as upstream.
func TestEventsV1Validation(t *testing.T) {
	a := framework.StartAPIServer(t)
	bad := `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"bad"},"type":"Info","deprecatedCount":2,
		"regarding":{"kind":"Pod","namespace":"default","name":"web"},"series":{"count":1}}`
	got := refusalOf(t, a.Do(t, "POST", eventsV1Path, []byte(bad)))
	want := refusal{code: 422, reason: "Invalid",
		message: `Event.events.k8s.io "bad" is invalid: [series.count: Invalid value: "": should be at least 2, ` +
			`series.lastObservedTime: Required value, eventTime: Required value, type: Invalid value: "": has invalid value: Info, ` +
			`count: Invalid value: "": needs to be unset]`,
		fields: []string{"series.count", "series.lastObservedTime", "eventTime", "type", "count"}}
	if got.String() != want.String() {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// The same object through core/v1 passes: the older API is lenient.
	core := `{"apiVersion":"v1","kind":"Event","metadata":{"name":"lenient"},"type":"Info","count":2,
		"involvedObject":{"kind":"Pod","namespace":"default","name":"web"}}`
	if r := a.Do(t, "POST", coreEvents, []byte(core)); r.Code != 201 {
		t.Errorf("core/v1 create: %d %s", r.Code, r.Body)
	}
	if r := a.Do(t, "GET", "/apis/events.k8s.io/v1", nil); r.Code != 200 ||
		!strings.Contains(string(r.Body), `"name":"events","singularName":"event","namespaced":true,"kind":"Event"`) {
		t.Errorf("discovery of events.k8s.io/v1: %d %s", r.Code, r.Body)
	}
}
