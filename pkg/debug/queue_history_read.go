package debug

import (
	"context"
	"sync"
)

// QueueHistoryReader keeps a QueueHistory up to date from the journals of
// a cluster's components: each Update reads only the trace records a
// component added since the previous one. `ctl queues --history` and the
// web view's Workqueues panel read the passages through it. It is safe for
// concurrent use.
type QueueHistoryReader struct {
	mu      sync.Mutex
	history *QueueHistory
	// read is, per component, the endpoint its journal was read from and
	// the last record read: a component that restarts serves a new
	// journal (numbered from 1 again) at a new address, with a new PID.
	read map[string]journalCursor
}

type journalCursor struct {
	endpoint Endpoint
	seq      uint64
}

// NewQueueHistoryReader returns a reader keeping the last perQueue
// passages of each queue.
func NewQueueHistoryReader(perQueue int) *QueueHistoryReader {
	return &QueueHistoryReader{history: NewQueueHistory(perQueue), read: map[string]journalCursor{}}
}

// Update reads each endpoint's new trace records into the history and
// returns the passages of the queues named queue ("" for every queue). A
// component that does not answer keeps the passages read so far.
func (r *QueueHistoryReader) Update(ctx context.Context, c *Client, endpoints []Endpoint, queue string) []KeyPassage {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ep := range endpoints {
		cursor := r.read[ep.Component]
		if cursor.endpoint != ep {
			r.history.Forget(ep.Component)
			cursor = journalCursor{endpoint: ep}
		}
		_ = c.Records(ctx, ep, RecordQuery{After: cursor.seq, Types: TypeTrace}, func(rec Record) error {
			r.history.Add(rec)
			cursor.seq = rec.Seq
			return nil
		})
		r.read[ep.Component] = cursor
	}
	passages := r.history.Passages(queue)
	if passages == nil {
		passages = []KeyPassage{}
	}
	return passages
}
