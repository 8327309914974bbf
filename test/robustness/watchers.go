package robustness

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Watcher is a client that follows ConfigMaps the way an informer's
// reflector does, and records everything it sees: it lists, watches from
// the list's resourceVersion, resumes a broken watch from the last
// resourceVersion it saw (an event's or a bookmark's), and on 410 Gone (or
// any other ERROR event) lists again. A watcher started from an old
// resourceVersion skips the first list and watches from there at once: if
// that revision was compacted, its first answer is 410.
type Watcher struct {
	api       *apiClient
	namespace string // "" watches every namespace
	bookmarks bool
	// startFrom is the resourceVersion of the first watch; 0 lists first.
	startFrom int64

	mu     sync.Mutex
	record WatcherRecord
	// cursor is the resourceVersion the watcher has reached.
	cursor int64
	// dropStream ends the current stream (the client-side dropped watch).
	dropStream context.CancelFunc
}

func newWatcher(api *apiClient, name, namespace string, bookmarks bool, startFrom int64) *Watcher {
	prefix := HistoryPrefix
	if namespace != "" {
		prefix = ConfigMapKey(namespace, "")
	}
	return &Watcher{api: api, namespace: namespace, bookmarks: bookmarks, startFrom: startFrom,
		record: WatcherRecord{Name: name, Prefix: prefix, Bookmarks: bookmarks}}
}

func (w *Watcher) observe(o Observation) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.record.Observations = append(w.record.Observations, o)
	switch o.Kind {
	case ObservedList, ObservedEvent, ObservedBookmark:
		w.cursor = o.Revision
	}
}

// Cursor returns the resourceVersion the watcher has reached.
func (w *Watcher) Cursor() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cursor
}

// Record returns what the watcher saw.
func (w *Watcher) Record() WatcherRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.record
	r.Observations = append([]Observation(nil), r.Observations...)
	return r
}

// Drop ends the watcher's current stream, as a broken connection would;
// it resumes from the last resourceVersion it saw.
func (w *Watcher) Drop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dropStream != nil {
		w.dropStream()
	}
}

func (w *Watcher) path() string {
	if w.namespace == "" {
		return "/api/v1/configmaps"
	}
	return "/api/v1/namespaces/" + w.namespace + "/configmaps"
}

// Run follows the ConfigMaps until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	from, needList := w.startFrom, w.startFrom == 0
	for ctx.Err() == nil {
		if needList {
			rv, err := w.list(ctx)
			if err != nil {
				pause(ctx, 100*time.Millisecond)
				continue
			}
			from, needList = rv, false
		}
		var gone bool
		from, gone = w.watch(ctx, from)
		if gone {
			needList = true
		}
		if ctx.Err() == nil && !gone {
			pause(ctx, 20*time.Millisecond)
		}
	}
}

// list records one consistent list and returns its resourceVersion.
func (w *Watcher) list(ctx context.Context) (int64, error) {
	reqCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	code, body, err := w.api.do(reqCtx, http.MethodGet, w.path(), "", nil)
	if err != nil {
		return 0, err
	}
	if code != http.StatusOK {
		return 0, fmt.Errorf("list: %s", statusMessage(code, body))
	}
	obj, err := decodeObject(body)
	if err != nil {
		return 0, err
	}
	w.observe(Observation{Kind: ObservedList, Revision: obj.resourceVersion(), Items: obj.items()})
	return obj.resourceVersion(), nil
}

// watch runs one watch from resourceVersion from and returns the
// resourceVersion to resume from, and whether the watcher must list again.
func (w *Watcher) watch(ctx context.Context, from int64) (resume int64, relist bool) {
	streamCtx, drop := context.WithCancel(ctx)
	defer drop()
	w.mu.Lock()
	w.dropStream = drop
	w.mu.Unlock()

	w.observe(Observation{Kind: ObservedWatchStart, Revision: from})
	path := w.path() + "?watch=1&resourceVersion=" + strconv.FormatInt(from, 10)
	if w.bookmarks {
		path += "&allowWatchBookmarks=true"
	}
	req, err := http.NewRequestWithContext(streamCtx, http.MethodGet, w.api.url+path, nil)
	if err != nil {
		w.observe(Observation{Kind: ObservedEnd, Detail: err.Error()})
		return from, false
	}
	req.Header.Set("Authorization", "Bearer "+w.api.token)
	resp, err := w.api.stream.Do(req)
	if err != nil {
		w.observe(Observation{Kind: ObservedEnd, Detail: err.Error()})
		return from, false
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusGone {
		w.observe(Observation{Kind: ObservedGone, Detail: resp.Status})
		return from, true
	}
	if resp.StatusCode != http.StatusOK {
		w.observe(Observation{Kind: ObservedEnd, Detail: resp.Status})
		return from, false
	}
	scanner := bufio.NewScanner(resp.Body)
	scanner.Buffer(make([]byte, 64<<10), 4<<20)
	for scanner.Scan() {
		var ev struct {
			Type   string     `json:"type"`
			Object wireObject `json:"object"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &ev); err != nil {
			w.observe(Observation{Kind: ObservedError, Detail: fmt.Sprintf("undecodable event %.100q: %v", scanner.Bytes(), err)})
			return from, true
		}
		switch ev.Type {
		case "ADDED", "MODIFIED", "DELETED":
			o := ev.Object
			from = o.resourceVersion()
			w.observe(Observation{Kind: ObservedEvent, Revision: from, EventType: ev.Type,
				Key: ConfigMapKey(o.Metadata.Namespace, o.Metadata.Name), Value: o.Data["v"]})
		case "BOOKMARK":
			from = ev.Object.resourceVersion()
			w.observe(Observation{Kind: ObservedBookmark, Revision: from})
		case "ERROR":
			kind := ObservedError
			if ev.Object.Code == http.StatusGone {
				kind = ObservedGone
			}
			w.observe(Observation{Kind: kind, Detail: ev.Object.Message})
			return from, true
		default:
			w.observe(Observation{Kind: ObservedError, Detail: "unknown event type " + ev.Type})
			return from, true
		}
	}
	detail := "stream ended"
	if err := scanner.Err(); err != nil {
		detail = err.Error()
	}
	w.observe(Observation{Kind: ObservedEnd, Detail: detail})
	return from, false
}

// pause sleeps for d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
