package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/debug"
	"kplane/pkg/store"
	"kplane/pkg/store/keys"
)

// The etcd browser of the debug API (`ctl etcd ls|get|history`): what the
// apiserver keeps in etcd, read straight from etcd, bypassing the watch
// cache, with the revisions that are the objects' resourceVersions. The
// routes are registered on the apiserver's journal, so they are served
// behind the debug API's authentication (cluster administrators only), and
// only when the debug API is on.

// Limits of the etcd routes. A page of 500 keys is kubectl's chunk size; a
// page can be asked as large as 10 000, and a history as long as 10 000
// changes, which keeps one answer to a few tens of MiB at worst.
const (
	defaultEtcdKeysLimit = 500
	maxEtcdLimit         = 10000
	// etcdReadTimeout bounds one etcd route's work.
	etcdReadTimeout = 30 * time.Second
)

// registerDebugRoutes adds the apiserver's own routes to its debug API.
// It must run before the debug API's handler is built.
func (s *Server) registerDebugRoutes() {
	j := s.opts.Journal
	j.Handle("GET "+debug.PathEtcdKeys, http.HandlerFunc(s.serveEtcdKeys))
	j.Handle("GET "+debug.PathEtcdGet, http.HandlerFunc(s.serveEtcdGet))
	j.Handle("GET "+debug.PathEtcdHistory, http.HandlerFunc(s.serveEtcdHistory))
	j.Handle("POST "+debug.PathFaultCompact, http.HandlerFunc(s.serveFaultCompact))
}

// serveEtcdKeys answers debug.PathEtcdKeys: one page of keys under prefix.
func (s *Server) serveEtcdKeys(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	prefix := q.Get("prefix")
	if prefix == "" {
		prefix = keys.Root
	}
	limit, ok := parseEtcdLimit(w, q.Get("limit"), defaultEtcdKeysLimit)
	if !ok {
		return
	}
	opts := store.ListOptions{Limit: int64(limit)}
	if token := q.Get("continue"); token != "" {
		// The apiserver's own list tokens: the revision every page is
		// read at, so the pages form one snapshot, and the last key given.
		c, err := decodeContinue(token)
		if err != nil {
			response.WriteError(w, apierrors.NewBadRequest(fmt.Sprintf("continue token %q is not one this server handed out", token)))
			return
		}
		opts.Revision, opts.StartAfter = c.Revision, c.StartKey
	}
	ctx, cancel := context.WithTimeout(r.Context(), etcdReadTimeout)
	defer cancel()
	page, err := s.etcd.List(ctx, prefix, opts)
	if errors.Is(err, store.ErrGone) {
		response.WriteError(w, apierrors.NewResourceExpired(
			fmt.Sprintf("the listing's revision %d has been compacted; list again without continue", opts.Revision)))
		return
	}
	if err != nil {
		response.WriteError(w, apierrors.NewInternalError(err))
		return
	}
	list := debug.EtcdKeyList{Prefix: prefix, Revision: page.Revision, Keys: make([]debug.EtcdKey, 0, len(page.Items))}
	for _, kv := range page.Items {
		list.Keys = append(list.Keys, etcdKeyOf(kv))
	}
	if page.More && len(page.Items) > 0 {
		list.Continue = encodeContinue(page.Revision, page.Items[len(page.Items)-1].Key)
		list.RemainingKeys = page.Remaining
	}
	debug.WriteJSON(w, list)
}

// serveEtcdGet answers debug.PathEtcdGet: one key's value and revisions.
func (s *Server) serveEtcdGet(w http.ResponseWriter, r *http.Request) {
	key, ok := requireEtcdKey(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), etcdReadTimeout)
	defer cancel()
	kv, err := s.etcd.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		response.WriteError(w, apierrors.FromStatus(api.Status{Code: http.StatusNotFound, Reason: apierrors.ReasonNotFound,
			Message: fmt.Sprintf("key %q not found in etcd", key)}))
		return
	}
	if err != nil {
		response.WriteError(w, apierrors.NewInternalError(err))
		return
	}
	debug.WriteJSON(w, debug.EtcdValue{EtcdKey: etcdKeyOf(kv), Value: jsonValue(kv.Value)})
}

// serveEtcdHistory answers debug.PathEtcdHistory: a key's changes back to
// the compaction point.
func (s *Server) serveEtcdHistory(w http.ResponseWriter, r *http.Request) {
	key, ok := requireEtcdKey(w, r)
	if !ok {
		return
	}
	limit, ok := parseEtcdLimit(w, r.URL.Query().Get("limit"), store.DefaultHistoryLimit)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), etcdReadTimeout)
	defer cancel()
	h, err := s.etcd.History(ctx, key, limit)
	if err != nil {
		response.WriteError(w, apierrors.NewInternalError(err))
		return
	}
	out := debug.EtcdHistory{Key: key, Revision: h.Revision, CompactRevision: h.CompactRevision, Omitted: h.Omitted,
		Revisions: make([]debug.EtcdRevision, 0, len(h.Changes))}
	if h.AtCompaction != nil {
		at := etcdRevisionOf("", *h.AtCompaction)
		out.AtCompaction = &at
	}
	for _, c := range h.Changes {
		out.Revisions = append(out.Revisions, etcdRevisionOf(etcdEvent(c.Type), c.KV))
	}
	debug.WriteJSON(w, out)
}

// etcdKeyOf is kv's key and revisions, without the value.
func etcdKeyOf(kv store.KV) debug.EtcdKey {
	return debug.EtcdKey{Key: kv.Key, CreateRevision: kv.CreateRevision, ModRevision: kv.ModRevision,
		Version: kv.Version, ValueSize: len(kv.Value)}
}

// etcdRevisionOf is one change of a history: the revision a client saw
// as the object's resourceVersion is the change's mod revision.
func etcdRevisionOf(event string, kv store.KV) debug.EtcdRevision {
	rev := debug.EtcdRevision{Revision: kv.ModRevision, ResourceVersion: strconv.FormatInt(kv.ModRevision, 10),
		Event: event, Version: kv.Version}
	if event != debug.EtcdDelete {
		rev.Value, rev.ValueSize = jsonValue(kv.Value), len(kv.Value)
	}
	return rev
}

// etcdEvent names a store change as a history event.
func etcdEvent(t store.EventType) string {
	switch t {
	case store.Added:
		return debug.EtcdCreate
	case store.Deleted:
		return debug.EtcdDelete
	}
	return debug.EtcdUpdate
}

// jsonValue is a stored value as JSON: the apiserver stores JSON, which
// passes as it is; anything else (written behind the apiserver's back)
// becomes a JSON string.
func jsonValue(value []byte) json.RawMessage {
	if json.Valid(value) {
		return value
	}
	quoted, _ := json.Marshal(string(value))
	return quoted
}

// requireEtcdKey reads the key= parameter, answering 400 without it.
func requireEtcdKey(w http.ResponseWriter, r *http.Request) (string, bool) {
	key := r.URL.Query().Get("key")
	if key == "" {
		response.WriteError(w, apierrors.NewBadRequest("the key parameter is required, e.g. key=/registry/configmaps/default/app"))
		return "", false
	}
	return key, true
}

// parseEtcdLimit reads a limit= parameter: empty or 0 gives def; it must
// be a number from 0 to maxEtcdLimit, else the answer is 400.
func parseEtcdLimit(w http.ResponseWriter, value string, def int) (int, bool) {
	if value == "" {
		return def, true
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 || n > maxEtcdLimit {
		response.WriteError(w, apierrors.NewBadRequest(
			fmt.Sprintf("limit must be a number from 0 to %d, not %q", maxEtcdLimit, value)))
		return 0, false
	}
	if n == 0 {
		return def, true
	}
	return n, true
}
