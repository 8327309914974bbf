package ui

import (
	"encoding/json"
	"net/http"
	"testing"
)

// event returns an Event about the object with UID about.
func event(uid, about, reason string) map[string]any {
	return map[string]any{"kind": "Event", "reason": reason,
		"metadata":       map[string]any{"uid": uid, "name": "web-1." + uid, "namespace": "default"},
		"involvedObject": map[string]any{"kind": "Pod", "uid": about, "name": "web-1"}}
}

func TestStreamLeavesEventsOut(t *testing.T) {
	s, ts := newTestServer(t)
	s.hub.Upsert("Pod", pod("u1", "web-1", "Pending"))
	s.hub.Upsert("Event", event("e1", "u1", "Scheduled"))

	events := openStream(t, ts.URL)

	_, data := events.next(t)
	var snapshot snapshotEvent
	if err := json.Unmarshal([]byte(data), &snapshot); err != nil {
		t.Fatal(err)
	}
	if len(snapshot.Objects) != 1 || snapshot.Objects[0].Kind != "Pod" {
		t.Fatalf("snapshot %+v, want only pod u1", snapshot.Objects)
	}

	// An Event's change is not streamed: the next event is the pod's.
	s.hub.Upsert("Event", event("e2", "u1", "Started"))
	s.hub.Upsert("Pod", pod("u1", "web-1", "Running"))
	eventType, data := events.next(t)
	var item Item
	if err := json.Unmarshal([]byte(data), &item); err != nil || eventType != "upsert" || item.Kind != "Pod" {
		t.Fatalf("event %s %s (%v), want the pod's upsert", eventType, data, err)
	}
}

func TestEventsAPIAnswersTheObjectsEvents(t *testing.T) {
	s, ts := newTestServer(t)
	s.hub.Upsert("Event", event("e1", "u1", "Scheduled"))
	s.hub.Upsert("Event", event("e2", "u1", "Started"))
	s.hub.Upsert("Event", event("e3", "u2", "Scheduled"))

	if resp := get(t, ts.URL+"/api/events/u1", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without credentials: %d, want 401", resp.StatusCode)
	}

	reasons := func(uid string) map[string]bool {
		resp := get(t, ts.URL+"/api/events/"+uid, bearer(testAdminToken))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("/api/events/%s: %d", uid, resp.StatusCode)
		}
		var answer objectEvents
		if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
			t.Fatal(err)
		}
		found := map[string]bool{}
		for _, item := range answer.Events {
			found[stringAt(item.Object, "reason")] = true
		}
		return found
	}
	if got := reasons("u1"); len(got) != 2 || !got["Scheduled"] || !got["Started"] {
		t.Errorf("Events of u1: %v, want Scheduled and Started", got)
	}
	if got := reasons("nobody"); len(got) != 0 {
		t.Errorf("Events of an unknown UID: %v, want none", got)
	}
}
