package store

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// watchBufferSize is how many translated events wait for a slow consumer
// before the watch stops reading from etcd (upstream's etcd watcher buffers
// 100 too). etcd then holds the rest, so nothing is lost, only delayed.
const watchBufferSize = 100

// Watch streams the changes under prefix with a revision above afterRevision
// (0: changes from now on).
//
// etcd replays history from afterRevision+1 before sending live changes, so a
// client that listed at revision R and watches from R sees every change after
// its list exactly once and in order. If R has been compacted, the watch
// delivers one Error event wrapping ErrGone and ends; the client must list
// again (Kubernetes answers 410 Gone here).
func (s *EtcdStore) Watch(ctx context.Context, prefix string, afterRevision int64) (Watcher, error) {
	if afterRevision < 0 {
		return nil, fmt.Errorf("watch %q: negative revision %d", prefix, afterRevision)
	}
	opts := []clientv3.OpOption{
		clientv3.WithPrefix(),
		// Deleted events then carry the object's last value.
		clientv3.WithPrevKV(),
		// etcd sends an empty response now and then (every 10 minutes by
		// default) when nothing under prefix changed; these become Bookmarks.
		clientv3.WithProgressNotify(),
	}
	if afterRevision > 0 {
		opts = append(opts, clientv3.WithRev(afterRevision+1))
	}

	// WithRequireLeader makes etcd cancel the watch when its member loses
	// the leader, instead of leaving it silently stale (as upstream's
	// apiserver does). The same context metadata must be used for
	// RequestProgress, since clientv3 picks the gRPC stream by it.
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	// Each Watcher gets its own clientv3 watcher (one stream), so Stop
	// can close it and know every goroutine behind it has ended, and a
	// progress request concerns this watch only.
	// The embedded etcd's watches are in-process (inProcessWatch), where
	// the leader requirement is not checked: a lone member is its own leader.
	var etcdWatcher clientv3.Watcher
	var etcdClosed <-chan struct{} // nil, never ready: closing the gRPC connection ends the watch
	if s.inProcess != nil {
		etcdWatcher, etcdClosed = s.inProcess.newWatcher(s.client), s.inProcess.closed
	} else {
		etcdWatcher = clientv3.NewWatcher(s.client)
	}
	w := &etcdWatch{
		prefix:  prefix,
		watcher: etcdWatcher,
		ctx:     ctx,
		cancel:  cancel,
		result:  make(chan Event, watchBufferSize),
		done:    make(chan struct{}),
		closed:  etcdClosed,
	}
	go w.run(etcdWatcher.Watch(ctx, prefix, opts...), afterRevision)
	return w, nil
}

// etcdWatch turns one clientv3 watch into store Events.
//
// Invariant: run is the only sender on result and closes it when it returns;
// done is closed after that, when the clientv3 watcher has been closed too.
type etcdWatch struct {
	prefix  string
	watcher clientv3.Watcher
	ctx     context.Context
	cancel  context.CancelFunc
	result  chan Event
	done    chan struct{}
	closed  <-chan struct{} // an in-process watch's etcd has shut down

	stopOnce sync.Once
}

// ResultChan returns the events; it is closed when the watch ends.
func (w *etcdWatch) ResultChan() <-chan Event { return w.result }

// Stop ends the watch and waits until its goroutines have exited. It is safe
// to call more than once and after the watch ended by itself.
func (w *etcdWatch) Stop() {
	w.stopOnce.Do(w.cancel)
	<-w.done
}

// RequestProgress asks etcd for a progress notification, which arrives as a
// Bookmark event carrying etcd's current revision.
//
// etcd answers only if the watch has caught up with the store (so a Bookmark
// never runs ahead of events still to come) and has reached its starting
// revision; otherwise it drops the request without a word. Callers that need
// a Bookmark ask again after a while, as upstream's watch cache does.
func (w *etcdWatch) RequestProgress(ctx context.Context) error {
	select {
	case <-w.done:
		return fmt.Errorf("request progress on watch %q: watch has ended", w.prefix)
	default:
	}
	// Use the watch's context metadata (the leader requirement) so clientv3
	// finds the watch's stream, but the caller's deadline and cancellation.
	if err := w.watcher.RequestProgress(clientv3.WithRequireLeader(ctx)); err != nil {
		return fmt.Errorf("request progress on watch %q: %w", w.prefix, translateError(err))
	}
	return nil
}

// run translates etcd's watch responses until the watch ends.
func (w *etcdWatch) run(responses clientv3.WatchChan, afterRevision int64) {
	defer close(w.done)
	defer func() { _ = w.watcher.Close() }()
	defer close(w.result)
	defer w.cancel()

	for {
		var resp clientv3.WatchResponse
		var ok bool
		select {
		case <-w.ctx.Done():
			return
		case <-w.closed:
			w.send(Event{Type: Error, Err: fmt.Errorf("watch %q: etcd closed the watch", w.prefix)})
			return
		case resp, ok = <-responses:
		}
		if !ok {
			if w.ctx.Err() == nil {
				w.send(Event{Type: Error, Err: fmt.Errorf("watch %q: etcd closed the watch", w.prefix)})
			}
			return
		}
		if err := resp.Err(); err != nil {
			w.send(Event{Type: Error, Err: w.watchError(resp, err, afterRevision)})
			return
		}
		if resp.IsProgressNotify() {
			if !w.send(Event{Type: Bookmark, Revision: resp.Header.Revision}) {
				return
			}
			continue
		}
		for _, ev := range resp.Events {
			if !w.send(eventFromEtcd(ev)) {
				return
			}
		}
	}
}

// send delivers ev unless the watch is stopped first; it never blocks on a
// consumer that has gone away. It reports whether ev was delivered.
func (w *etcdWatch) send(ev Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.ctx.Done():
		return false
	}
}

// watchError explains why etcd ended the watch, wrapping ErrGone when the
// starting revision had been compacted.
func (w *etcdWatch) watchError(resp clientv3.WatchResponse, err error, afterRevision int64) error {
	if resp.CompactRevision != 0 {
		return fmt.Errorf("watch %q after revision %d (compacted up to %d): %w",
			w.prefix, afterRevision, resp.CompactRevision, ErrGone)
	}
	if errors.Is(translateError(err), ErrGone) {
		return fmt.Errorf("watch %q after revision %d: %w", w.prefix, afterRevision, ErrGone)
	}
	return fmt.Errorf("watch %q: %w", w.prefix, translateError(err))
}

// eventFromEtcd translates one etcd event. etcd has only PUT and DELETE; a PUT
// whose create and mod revisions are equal made the key, so it is Added.
func eventFromEtcd(ev *clientv3.Event) Event {
	var prev *KV
	if ev.PrevKv != nil {
		p := kvFromEtcd(ev.PrevKv)
		prev = &p
	}
	rev := ev.Kv.ModRevision
	switch {
	case ev.Type == mvccpb.DELETE:
		// etcd's delete event has only the key and the delete revision; the
		// object's last value comes from the previous key-value.
		kv := KV{Key: string(ev.Kv.Key), ModRevision: rev}
		if prev != nil {
			kv.Value = prev.Value
			kv.CreateRevision = prev.CreateRevision
		}
		return Event{Type: Deleted, KV: kv, PrevKV: prev, Revision: rev}
	case ev.IsCreate():
		return Event{Type: Added, KV: kvFromEtcd(ev.Kv), Revision: rev}
	default:
		return Event{Type: Modified, KV: kvFromEtcd(ev.Kv), PrevKV: prev, Revision: rev}
	}
}
