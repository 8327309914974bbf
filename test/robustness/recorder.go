package robustness

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Recorder keeps the true history: one etcd watch on the ConfigMaps'
// prefix from revision 1, opened before any traffic and kept for the whole
// run. etcd delivers every change to a watch that keeps up, even across a
// compaction and a member's death (the client resumes on another member
// from the next revision), so what it collects is etcd's own history.
//
// If etcd ever cancels the watch — it fell behind a compaction — the
// history has a hole and the run cannot be judged; Err says so.
type Recorder struct {
	client *clientv3.Client
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	events []HistoryEvent
	// seen is the newest revision etcd has said the watch is up to date
	// with (from any response header, progress notifications included).
	seen int64
	err  error
}

// HistoryPrefix is the etcd prefix the recorder watches.
const HistoryPrefix = "/registry/configmaps/"

// StartRecorder opens the history watch on the cluster's etcd.
func StartRecorder(endpoints []string) (*Recorder, error) {
	client, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return nil, fmt.Errorf("etcd client for the history recorder: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Recorder{client: client, cancel: cancel, done: make(chan struct{})}
	wch := client.Watch(ctx, HistoryPrefix, clientv3.WithPrefix(), clientv3.WithRev(1), clientv3.WithPrevKV())
	go r.run(ctx, wch)
	return r, nil
}

func (r *Recorder) run(ctx context.Context, wch clientv3.WatchChan) {
	defer close(r.done)
	for resp := range wch {
		r.mu.Lock()
		switch {
		case r.err != nil:
		case resp.CompactRevision != 0:
			r.err = fmt.Errorf("the history watch fell behind a compaction at revision %d: the history has a hole", resp.CompactRevision)
		case resp.Canceled && ctx.Err() == nil:
			r.err = fmt.Errorf("etcd cancelled the history watch: %v", resp.Err())
		}
		for _, ev := range resp.Events {
			he := HistoryEvent{Key: string(ev.Kv.Key), Revision: ev.Kv.ModRevision}
			if ev.Type == clientv3.EventTypeDelete {
				he.Type = Delete
				if ev.PrevKv != nil {
					he.Value = valueOf(ev.PrevKv.Value)
				}
			} else {
				he.Type, he.Created, he.Value = Put, ev.Kv.Version == 1, valueOf(ev.Kv.Value)
			}
			r.events = append(r.events, he)
			r.seen = max(r.seen, he.Revision)
		}
		r.seen = max(r.seen, resp.Header.Revision)
		r.mu.Unlock()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Err() == nil && r.err == nil {
		r.err = fmt.Errorf("the history watch ended at revision %d", r.seen)
	}
}

// Seen returns the newest revision the history reaches.
func (r *Recorder) Seen() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen
}

// LastUnder returns the revision of the newest change recorded under
// prefix, or 0.
func (r *Recorder) LastUnder(prefix string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.events) - 1; i >= 0; i-- {
		if strings.HasPrefix(r.events[i].Key, prefix) {
			return r.events[i].Revision
		}
	}
	return 0
}

// valueOf is the robustness value (data "v") of a stored ConfigMap, or ""
// when it has none.
func valueOf(stored []byte) string {
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if json.Unmarshal(stored, &cm) != nil {
		return ""
	}
	return cm.Data["v"]
}

// CatchUp waits until the recorder has every change up to etcd's current
// revision, asking etcd for progress notifications meanwhile, and returns
// that revision. Faults that compact call it first, so the compaction never
// overtakes the history watch.
func (r *Recorder) CatchUp(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := r.client.Get(ctx, "robustness-probe")
	if err != nil {
		return 0, fmt.Errorf("read etcd's current revision: %w", err)
	}
	target := resp.Header.Revision
	for {
		r.mu.Lock()
		seen, failed := r.seen, r.err
		r.mu.Unlock()
		if failed != nil {
			return 0, failed
		}
		if seen >= target {
			return target, nil
		}
		_ = r.client.RequestProgress(ctx)
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("the history watch is at revision %d, etcd at %d: %w", seen, target, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Compact compacts etcd up to revision (a real etcd compaction, as the
// apiserver's periodic compactor makes).
func (r *Recorder) Compact(ctx context.Context, revision int64) error {
	if _, err := r.client.Compact(ctx, revision, clientv3.WithCompactPhysical()); err != nil {
		return fmt.Errorf("compact etcd to revision %d: %w", revision, err)
	}
	return nil
}

// Stop ends the watch and returns the history up to the revision it
// reached, or why the history cannot be trusted.
func (r *Recorder) Stop() (History, error) {
	r.cancel()
	<-r.done
	r.client.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	return History{Events: r.events, LastRevision: r.seen}, r.err
}

// WaitMember waits until the etcd member at endpoint answers and knows a
// leader: it is back in the cluster.
func (r *Recorder) WaitMember(ctx context.Context, endpoint string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		statusCtx, statusCancel := context.WithTimeout(ctx, time.Second)
		status, err := r.client.Status(statusCtx, endpoint)
		statusCancel()
		if err == nil && status.Leader != 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("etcd member %s is not back (last: %v): %w", endpoint, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
