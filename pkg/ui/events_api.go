package ui

import (
	"encoding/json"
	"net/http"
)

// The page's stream leaves Events out: every pod that starts writes
// several (Scheduled, Pulled, Created, Started, and its ReplicaSet's
// SuccessfulCreate), so with 1 000 pods Events are most of the objects,
// and the page would parse them all — in its first snapshot too — to show
// the few of the one object a student selected. The details view asks for
// those here instead, as `kubectl describe` does with a field selector on
// involvedObject.uid.

// streamed says whether the page's stream carries item: every kind the
// Hub holds but Event.
func streamed(item Item) bool {
	return item.Kind != "Event"
}

// objectEvents is the answer of /api/events/{uid}.
type objectEvents struct {
	// Events are the Events whose involvedObject.uid is the object's UID,
	// each as the stream would carry it.
	Events []Item `json:"events"`
}

// EventsAbout returns the Events the Hub holds whose involvedObject.uid is
// uid, in no particular order.
func (h *Hub) EventsAbout(uid string) []Item {
	h.mu.Lock()
	defer h.mu.Unlock()
	found := []Item{}
	for _, item := range h.current {
		if item.Kind == "Event" && stringAt(item.Object, "involvedObject", "uid") == uid {
			found = append(found, item)
		}
	}
	return found
}

// serveObjectEvents is /api/events/{uid}: the Events about one object. An
// object with no Events (or one the view never saw) has an empty list,
// as `kubectl describe` shows "Events: <none>".
func (s *Server) serveObjectEvents(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(objectEvents{Events: s.hub.EventsAbout(r.PathValue("uid"))})
}
