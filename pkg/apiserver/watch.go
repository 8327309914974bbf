package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/store"
	"kplane/pkg/store/cache"
)

// A watch is a long-lived response: one JSON object per line,
//
//	{"type":"ADDED","object":{…the pod…}}
//	{"type":"MODIFIED","object":{…}}
//	{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"1234"}}}
//
// fed from the watch cache. With resourceVersion="" or "0" the stream first
// lists what exists (as ADDED events) and then follows changes; with a
// resourceVersion N it replays every change after N, or answers with an
// ERROR event carrying a 410 Expired Status when N has been compacted.

// watchEvent is one line of a watch stream.
type watchEvent struct {
	Type   string `json:"type"`
	Object any    `json:"object"`
}

// serveWatch streams the changes of one resource (optionally one namespace,
// filtered by selectors) until the client goes, the timeout passes or the
// server stops.
func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	res := info.res
	sel, err := parseSelectors(r, res)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	q := queryOf(r)
	if err := validateListOptions(q, true); err != nil {
		response.WriteError(w, err)
		return
	}
	rvParam := q.string("resourceVersion")
	rv, err := parseResourceVersion(rvParam)
	if err != nil {
		response.WriteError(w, apierrors.NewBadRequest(err.Error()))
		return
	}
	timeout := time.Duration(30+rand.IntN(30)) * time.Minute // upstream: --min-request-timeout 1800 s × [1, 2)
	timeoutSeconds, err := q.optionalInt64("timeoutSeconds")
	if err != nil {
		response.WriteError(w, err)
		return
	}
	if timeoutSeconds != nil {
		if *timeoutSeconds < 0 {
			response.WriteError(w, apierrors.NewBadRequest(fmt.Sprintf("invalid value %d for timeoutSeconds: must not be negative", *timeoutSeconds)))
			return
		}
		timeout = time.Duration(*timeoutSeconds) * time.Second
	}
	bookmarks := q.bool("allowWatchBookmarks")
	sendInitial := q.bool("sendInitialEvents")
	asTable := response.TableRequested(r)
	includeObject := q.string("includeObject")

	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()

	// Set up under the fence, so a compaction fault that starts now
	// drops this watch or finds it held until it has compacted.
	leaveFence := s.enterWatchFence()
	defer leaveFence()

	prefix := res.keyPrefix(info.namespace)
	c, err := s.cacheOf(res)
	if err != nil {
		response.WriteError(w, err)
		return
	}

	// Initial state: "" and "0" start with the current objects as ADDED.
	var initial []*storedObject
	after := rv
	if rvParam == "" || rvParam == "0" || sendInitial {
		minRevision := rv
		if rvParam == "0" {
			minRevision = 1
		}
		entries, listRev, err := c.List(ctx, prefix, minRevision)
		if err != nil {
			response.WriteError(w, storeError(err, res, ""))
			return
		}
		for _, e := range entries {
			if so := e.Object.(*storedObject); sel.matches(so) {
				initial = append(initial, so)
			}
		}
		after = listRev
	}

	stream := &watchStream{s: s, w: w, res: res, asTable: asTable, includeObject: includeObject}
	if rvParam != "" && rvParam != "0" && s.compacted(ctx, after) {
		// The watch cache may still remember these events, but etcd has
		// compacted them away: history is served only while etcd has it.
		stream.start()
		stream.sendError(apierrors.NewGone(fmt.Sprintf("too old resource version: %d (%d)", rv, c.Revision())))
		return
	}
	watcher, err := c.Watch(ctx, prefix, after, bookmarks || sendInitial)
	if err != nil {
		if errors.Is(err, store.ErrGone) {
			stream.start()
			stream.sendError(apierrors.NewGone(fmt.Sprintf("too old resource version: %d (%d)", rv, c.Revision())))
			return
		}
		response.WriteError(w, storeError(err, res, ""))
		return
	}
	defer watcher.Stop()
	leaveFence()

	stream.start()
	for _, so := range initial {
		if !stream.send("ADDED", so) {
			return
		}
	}
	if sendInitial {
		// Watch-list: a bookmark marks the end of the initial state.
		stream.sendBookmark(after, map[string]string{"k8s.io/initial-events-end": "true"})
	}

	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-watcher.ResultChan():
			if !ok {
				return
			}
			if !stream.forward(ev, sel, bookmarks) {
				return
			}
		}
	}
}

// compacted reports whether etcd has compacted away revision rev, by reading
// a key that never exists at that revision (a cheap range read).
func (s *Server) compacted(ctx context.Context, rev int64) bool {
	_, err := s.store.List(ctx, "/registry/compaction-probe/", store.ListOptions{Revision: rev, Limit: 1})
	return errors.Is(err, store.ErrGone)
}

// watchStream writes events to one client.
type watchStream struct {
	s             *Server
	w             http.ResponseWriter
	res           *resource
	asTable       bool
	includeObject string
	sentColumns   bool
	line          []byte // the last object event's line, its buffer reused (appendObjectEvent)
}

func (ws *watchStream) start() {
	contentType := response.ContentTypeJSON
	if ws.asTable {
		contentType = response.ContentTypeTable
	}
	ws.w.Header().Set("Content-Type", contentType)
	ws.w.WriteHeader(http.StatusOK)
	ws.flush()
}

func (ws *watchStream) flush() {
	if f, ok := ws.w.(http.Flusher); ok {
		f.Flush()
	}
}

// forward turns a cache event into what this client should see. With
// selectors, an object that stops matching is reported as DELETED and one
// that starts matching as ADDED, as upstream does.
func (ws *watchStream) forward(ev cache.Event, sel selectors, bookmarks bool) bool {
	switch ev.Type {
	case store.Bookmark:
		if !bookmarks {
			return true
		}
		return ws.sendBookmark(ev.Revision, nil)
	case store.Error:
		err := ev.Err
		if errors.Is(err, store.ErrGone) {
			err = apierrors.NewGone(fmt.Sprintf("too old resource version: %v", ev.Err))
		}
		ws.sendError(err)
		return false
	}
	cur, _ := ev.Object.(*storedObject)
	prev, _ := ev.PrevObject.(*storedObject)
	curMatches := cur != nil && sel.matches(cur)
	prevMatches := prev != nil && sel.matches(prev)
	switch ev.Type {
	case store.Added:
		if curMatches {
			return ws.send("ADDED", cur)
		}
	case store.Modified:
		switch {
		case curMatches && prevMatches:
			return ws.send("MODIFIED", cur)
		case curMatches:
			return ws.send("ADDED", cur)
		case prevMatches:
			return ws.send("DELETED", cur)
		}
	case store.Deleted:
		if curMatches || (cur == nil && prevMatches) {
			obj := cur
			if obj == nil {
				obj = prev
			}
			return ws.send("DELETED", obj)
		}
	}
	return true
}

// send writes one event; false means the client is gone.
func (ws *watchStream) send(eventType string, so *storedObject) bool {
	if ws.asTable {
		t := ws.s.table(ws.res, []*storedObject{so}, ws.includeObject, !ws.sentColumns)
		ws.sentColumns = true
		t.ResourceVersion = so.obj.GetObjectMeta().ResourceVersion
		return ws.write(watchEvent{Type: eventType, Object: t})
	}
	return ws.writeLine(ws.appendObjectEvent(ws.line[:0], eventType, so.raw))
}

// appendObjectEvent appends the line of an object event to line: the same
// bytes json.Marshal gives for watchEvent{eventType, json.RawMessage(raw)},
// without its pass over the object to check and compact it again. That pass
// would find nothing to do: raw is the object as json.Marshal wrote it
// (newStoredObject), already compact and escaped, and eventType is one of
// ADDED, MODIFIED, DELETED. The line buffer is the stream's own and is
// reused for the next event, since Write copies what it is given.
func (ws *watchStream) appendObjectEvent(line []byte, eventType string, raw []byte) []byte {
	line = append(line, `{"type":"`...)
	line = append(line, eventType...)
	line = append(line, `","object":`...)
	line = append(line, raw...)
	line = append(line, "}\n"...)
	ws.line = line
	if cap(line) > maxKeptLineBuffer {
		ws.line = nil // one large object must not pin its size for the stream's life
	}
	return line
}

// maxKeptLineBuffer is the largest line buffer a watch stream keeps for
// its next event; most objects are far smaller.
const maxKeptLineBuffer = 64 << 10

// sendBookmark tells the client how far the stream has progressed.
func (ws *watchStream) sendBookmark(revision int64, annotations map[string]string) bool {
	obj := ws.res.newObject()
	setTypeMeta(ws.res, obj)
	meta := obj.GetObjectMeta()
	meta.ResourceVersion = strconv.FormatInt(revision, 10)
	meta.Annotations = annotations
	return ws.write(watchEvent{Type: "BOOKMARK", Object: obj})
}

// sendError ends a stream with an ERROR event carrying a Status.
func (ws *watchStream) sendError(err error) {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		se = apierrors.NewInternalError(err)
	}
	status := se.Status()
	ws.write(watchEvent{Type: "ERROR", Object: &status})
}

// write encodes ev as one line and sends it.
func (ws *watchStream) write(ev watchEvent) bool {
	b, err := json.Marshal(ev)
	if err != nil {
		ws.s.log.Error("encode watch event", "err", err)
		return false
	}
	return ws.writeLine(append(b, '\n'))
}

// writeLine sends one encoded event and flushes it to the client at once:
// a watcher waits for every event, so none may sit in a buffer.
func (ws *watchStream) writeLine(line []byte) bool {
	if _, err := ws.w.Write(line); err != nil {
		return false
	}
	ws.flush()
	return true
}
