package ui

import (
	"context"
	"net/http"
	"time"

	"kplane/pkg/debug"
)

// The Workqueues panel: every controller's workqueue in every component,
// as `ctl queues` prints it (depth, dirty, processing, waiting, retries),
// and the last keys that went through each queue — queue → processing →
// done — replayed from the components' journals by debug.QueueHistory,
// because a key a worker handles in a millisecond is never caught by a
// reading of the live sets.
//
// Live by polling, not by the object stream: the queue sets change many
// times a second, and nobody needs them while the panel is out of sight.
// The page asks at most once a second, only while the panel is visible;
// each request reads the journals incrementally, from where the last one
// stopped (debug.QueueHistoryReader, as `ctl queues --history` does).

// queuesPerQueue is how many past passages the panel keeps per queue:
// enough to find the key a student just touched among a queue's
// resyncs, few enough to read.
const queuesPerQueue = 12

// queuesAnswer is the answer of /api/debug/queues.
type queuesAnswer struct {
	// Components are the live sets, as `ctl queues -o json` prints them.
	Components []debug.ComponentQueues `json:"components"`
	// Passages are the last keys through each queue (of the queue asked
	// for, or of every queue), oldest first within a queue.
	Passages []debug.KeyPassage `json:"passages"`
}

// serveQueues is /api/debug/queues[?queue=NAME]: the live state of every
// workqueue and the last passages through each (or through the queues
// named NAME).
func (s *Server) serveQueues(w http.ResponseWriter, r *http.Request) {
	dc, endpoints, err := s.debugAPI()
	if err != nil {
		serveDebugUnavailable(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	answer := queuesAnswer{Components: debug.ReadQueues(ctx, dc, endpoints)}
	answer.Passages = s.queueHistory.Update(ctx, dc, endpoints, r.URL.Query().Get("queue"))
	debug.WriteJSON(w, answer)
}
