package ui

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"
)

// heartbeatInterval is how often an idle stream gets a comment line, so a
// dead connection is noticed by the server's next write.
const heartbeatInterval = 15 * time.Second

// snapshotEvent is the data of the stream's first event.
type snapshotEvent struct {
	Objects []Item `json:"objects"`
}

// deleteEvent is the data of a "delete" event.
type deleteEvent struct {
	Kind string `json:"kind"`
	UID  string `json:"uid"`
}

// serveStream is /api/stream: one server-sent-events stream per page. It
// starts with a "snapshot" event (every object the Hub holds but Events,
// which events_api.go serves on demand) and goes on with "upsert" and
// "delete" events as the informers report changes. A
// page that reconnects — EventSource does so by itself — gets a fresh
// snapshot rather than a replay: the Hub keeps the latest state, not a
// history, as an informer's cache does.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	snapshot, seq, changes, cancel := s.hub.Subscribe()
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)

	data, err := json.Marshal(snapshotEvent{Objects: slices.DeleteFunc(snapshot, func(item Item) bool { return !streamed(item) })})
	if err != nil || writeEvent(w, seq, "snapshot", data) != nil {
		return
	}
	flusher.Flush()
	heartbeat := time.NewTicker(heartbeatInterval)
	defer heartbeat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-heartbeat.C:
			if writeComment(w, "heartbeat") != nil {
				return
			}
		case change, open := <-changes:
			if !open {
				return // fell behind, or the server stops: the page reconnects
			}
			if !streamed(change.Item) {
				continue // events_api.go serves Events on demand
			}
			var payload any = change.Item
			if change.Type == ChangeDelete {
				payload = deleteEvent{Kind: change.Item.Kind, UID: change.Item.UID}
			}
			data, err := json.Marshal(payload)
			if err != nil || writeEvent(w, change.Seq, change.Type, data) != nil {
				return
			}
		}
		flusher.Flush()
	}
}
