package apiserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/api/fields"
	"kplane/pkg/api/labels"
	"kplane/pkg/apiserver/printers"
	"kplane/pkg/store"
	"kplane/pkg/store/cache"
)

// serveGet reads one object. Gets go to etcd, so they always see the
// latest write (upstream does the same for resourceVersion="").
func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	so, err := s.getStored(r.Context(), info.res, info.namespace, info.name)
	if err != nil {
		writeError(w, err)
		return
	}
	s.writeObject(w, r, http.StatusOK, info.res, so)
}

// getStored reads and decodes one object, mapping store errors to Status errors.
func (s *Server) getStored(ctx context.Context, res *resource, namespace, name string) (*storedObject, error) {
	kv, err := s.store.Get(ctx, res.key(namespace, name))
	if err != nil {
		return nil, storeError(err, res, name)
	}
	return s.decodeStored(res, kv)
}

// storeError maps a store error onto the Status a client should see.
func storeError(err error, res *resource, name string) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return apierrors.NewNotFound(res.qualified(), name)
	case errors.Is(err, store.ErrAlreadyExists):
		return apierrors.NewAlreadyExists(res.qualified(), name)
	case errors.Is(err, store.ErrConflict):
		return apierrors.NewConflict(res.qualified(), name, "the object has been modified; please apply your changes to the latest version and try again")
	case errors.Is(err, store.ErrGone):
		return apierrors.NewGone("The resourceVersion for the provided list is too old.")
	case errors.Is(err, store.ErrTooLarge):
		return apierrors.NewRequestEntityTooLarge("the object is larger than the store accepts in one request")
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &apierrors.StatusError{ErrStatus: api.Status{Code: http.StatusGatewayTimeout, Reason: apierrors.ReasonTimeout,
			Message: "request did not complete within the allowed duration"}}
	}
	return err
}

// writeObject answers with one object, as JSON or as a one-row Table.
func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, code int, res *resource, so *storedObject) {
	if tableRequest(r) {
		t := s.table(res, []*storedObject{so}, r.URL.Query().Get("includeObject"), true)
		t.ResourceVersion = so.obj.GetObjectMeta().ResourceVersion
		writeJSONAs(w, contentTypeTable, t)
		return
	}
	writeRaw(w, code, contentTypeJSON, so.raw)
}

// table renders objects as a meta.k8s.io/v1 Table with the kind's columns.
// includeObject is None, Metadata (the default) or Object, as upstream.
func (s *Server) table(res *resource, objs []*storedObject, includeObject string, withColumns bool) *api.Table {
	t := &api.Table{TypeMeta: api.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}, Rows: []api.TableRow{}}
	if withColumns {
		t.ColumnDefinitions = printers.Columns(res.kind)
	}
	now := time.Now()
	for _, so := range objs {
		row := api.TableRow{Cells: printers.Cells(so.obj, now)}
		switch includeObject {
		case "None":
		case "Object":
			row.Object = json.RawMessage(so.raw)
		default:
			row.Object = &api.PartialObjectMetadata{
				TypeMeta:   api.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
				ObjectMeta: *so.obj.GetObjectMeta(),
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// selectors are a request's label and field selectors.
type selectors struct {
	labels labels.Selector
	fields fields.Selector
	name   string // a watch on one object's URL watches only that name
}

func (sel selectors) empty() bool { return sel.labels.Empty() && sel.fields.Empty() && sel.name == "" }

func (sel selectors) matches(so *storedObject) bool {
	if sel.name != "" && so.fields["metadata.name"] != sel.name {
		return false
	}
	return sel.labels.Matches(so.labels) && sel.fields.Matches(fields.Set(so.fields))
}

// parseSelectors reads labelSelector and fieldSelector; a bad one is 400.
func parseSelectors(r *http.Request, res *resource) (selectors, error) {
	q := r.URL.Query()
	ls, err := labels.Parse(q.Get("labelSelector"))
	if err != nil {
		return selectors{}, apierrors.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
	}
	fs, err := fields.Parse(q.Get("fieldSelector"))
	if err != nil {
		return selectors{}, apierrors.NewBadRequest(err.Error())
	}
	allowed := append([]string{"metadata.name", "metadata.namespace"}, res.selectableFields...)
	if err := fields.ValidateFor(fs, allowed); err != nil {
		return selectors{}, apierrors.NewBadRequest(err.Error())
	}
	return selectors{labels: ls, fields: fs}, nil
}

// continueToken is the opaque `continue` of a paginated list: the revision
// the first page was read at and the last key returned so far.
type continueToken struct {
	Revision int64  `json:"rv"`
	StartKey string `json:"start"`
}

func encodeContinue(rev int64, lastKey string) string {
	b, _ := json.Marshal(continueToken{Revision: rev, StartKey: lastKey})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContinue(s string) (continueToken, error) {
	var t continueToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err != nil || t.Revision <= 0 {
		return t, apierrors.NewBadRequest("invalid continue token")
	}
	return t, nil
}

// listResult is one page of a list.
type listResult struct {
	items     []*storedObject
	revision  int64
	next      string // continue token, "" on the last page
	remaining *int64
}

// serveList answers a LIST, from the watch cache whenever it can: a plain
// list waits until the cache has caught up with etcd, so it is as fresh as a
// read from etcd, without decoding a single object.
func (s *Server) serveList(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	sel, err := parseSelectors(r, info.res)
	if err != nil {
		writeError(w, err)
		return
	}
	result, err := s.list(r.Context(), r, info.res, info.namespace, sel)
	if err != nil {
		writeError(w, err)
		return
	}
	if tableRequest(r) {
		t := s.table(info.res, result.items, r.URL.Query().Get("includeObject"), true)
		t.ResourceVersion = strconv.FormatInt(result.revision, 10)
		t.Continue = result.next
		t.RemainingItemCount = result.remaining
		writeJSONAs(w, contentTypeTable, t)
		return
	}
	writeRaw(w, http.StatusOK, contentTypeJSON, encodeList(info.res, result))
}

// encodeList writes a typed list (PodList, …) straight from the cached bytes.
func encodeList(res *resource, result listResult) []byte {
	meta := api.ListMeta{ResourceVersion: strconv.FormatInt(result.revision, 10), Continue: result.next, RemainingItemCount: result.remaining}
	metaJSON, _ := json.Marshal(meta)
	size := 128
	for _, so := range result.items {
		size += len(so.raw) + 1
	}
	var buf bytes.Buffer
	buf.Grow(size)
	fmt.Fprintf(&buf, `{"kind":%q,"apiVersion":%q,"metadata":%s,"items":[`, res.kind+"List", res.groupVersion(), metaJSON)
	for i, so := range result.items {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(so.raw)
	}
	buf.WriteString("]}")
	return buf.Bytes()
}

// list computes one page of a list request.
func (s *Server) list(ctx context.Context, r *http.Request, res *resource, namespace string, sel selectors) (listResult, error) {
	q := r.URL.Query()
	limit, err := strconv.ParseInt(q.Get("limit"), 10, 64)
	if q.Get("limit") != "" && (err != nil || limit < 0) {
		return listResult{}, apierrors.NewBadRequest(fmt.Sprintf("invalid limit %q", q.Get("limit")))
	}
	prefix := res.keyPrefix(namespace)
	c := s.caches[res]

	if token := q.Get("continue"); token != "" {
		t, err := decodeContinue(token)
		if err != nil {
			return listResult{}, err
		}
		// The cache only holds the present; if nothing changed since the first
		// page it still is that page's snapshot, otherwise read etcd's history.
		if c.Revision() == t.Revision {
			entries, rev, err := c.List(ctx, prefix, t.Revision)
			if err == nil && rev == t.Revision {
				return pageFromCache(entries, rev, t.StartKey, limit, sel), nil
			}
		}
		return s.listFromStore(ctx, res, prefix, t.Revision, t.StartKey, limit, sel)
	}

	rv, err := parseResourceVersion(q.Get("resourceVersion"))
	if err != nil {
		return listResult{}, apierrors.NewBadRequest(err.Error())
	}
	if rv > 0 && q.Get("resourceVersionMatch") == "Exact" {
		return s.listFromStore(ctx, res, prefix, rv, "", limit, sel)
	}
	minRevision := rv // "NotOlderThan"
	if q.Get("resourceVersion") == "0" {
		minRevision = 1 // "any": whatever the cache has
	}
	entries, rev, err := c.List(ctx, prefix, minRevision)
	if err != nil {
		return listResult{}, storeError(err, res, "")
	}
	return pageFromCache(entries, rev, "", limit, sel), nil
}

// pageFromCache selects, after startKey, up to limit entries that match sel.
func pageFromCache(entries []cache.Entry, rev int64, startKey string, limit int64, sel selectors) listResult {
	out := listResult{revision: rev, items: []*storedObject{}}
	start := 0
	if startKey != "" {
		start = sort.Search(len(entries), func(i int) bool { return entries[i].Key > startKey })
	}
	lastReturned := ""
	for i := start; i < len(entries); i++ {
		so := entries[i].Object.(*storedObject)
		if !sel.matches(so) {
			continue
		}
		if limit > 0 && int64(len(out.items)) == limit {
			// Another match exists: this page ends here.
			out.next = encodeContinue(rev, lastReturned)
			if sel.empty() {
				remaining := int64(len(entries) - i)
				out.remaining = &remaining
			}
			return out
		}
		out.items = append(out.items, so)
		lastReturned = entries[i].Key
	}
	return out
}

// listFromStore pages through etcd at a fixed revision, for continue tokens
// the cache can no longer serve and for resourceVersionMatch=Exact.
func (s *Server) listFromStore(ctx context.Context, res *resource, prefix string, rev int64, startKey string, limit int64, sel selectors) (listResult, error) {
	out := listResult{revision: rev, items: []*storedObject{}}
	after := startKey
	for {
		chunk := int64(500)
		if limit > 0 && limit-int64(len(out.items)) < chunk && sel.empty() {
			chunk = limit - int64(len(out.items))
		}
		page, err := s.store.List(ctx, prefix, store.ListOptions{Revision: rev, Limit: chunk, StartAfter: after})
		if errors.Is(err, store.ErrGone) {
			return out, apierrors.NewGone("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.")
		}
		if err != nil {
			return out, storeError(err, res, "")
		}
		for i, kv := range page.Items {
			so, err := s.decodeStored(res, kv)
			if err != nil {
				return out, err
			}
			after = kv.Key
			if !sel.matches(so) {
				continue
			}
			out.items = append(out.items, so)
			if limit > 0 && int64(len(out.items)) == limit {
				if i < len(page.Items)-1 || page.More {
					out.next = encodeContinue(rev, kv.Key)
					if sel.empty() {
						remaining := int64(len(page.Items)-i-1) + page.Remaining
						out.remaining = &remaining
					}
				}
				return out, nil
			}
		}
		if !page.More {
			return out, nil
		}
	}
}
