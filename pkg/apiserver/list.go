package apiserver

// Lists. A LIST is answered from the watch cache: the cache first catches up
// with etcd (a consistent read), then the response is assembled from each
// object's cached JSON. Pagination (limit/continue): a continue token names
// the first page's revision and the last key returned, and every later page
// shows the list as of that revision — from the cache, which rebuilds it
// from its history of recent changes, or, once that history no longer
// reaches back that far, from etcd's history at that revision (410 Expired
// once etcd has compacted it).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/store"
	"kplane/pkg/store/cache"
)

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
	q := queryOf(r)
	if err := validateListOptions(q, false); err != nil {
		return listResult{}, err
	}
	limit, err := q.int64("limit")
	if err != nil {
		return listResult{}, err
	}
	if limit < 0 {
		return listResult{}, apierrors.NewBadRequest(fmt.Sprintf("invalid value %q for limit: must not be negative", q.string("limit")))
	}
	prefix := res.keyPrefix(namespace)
	c, err := s.cacheOf(res)
	if err != nil {
		return listResult{}, err
	}

	opts := cache.PageOptions{Limit: int(limit)}
	if !sel.empty() {
		opts.Match = func(obj any) bool { return sel.matches(obj.(*storedObject)) }
	}

	if token := q.string("continue"); token != "" {
		t, err := decodeContinue(token)
		if err != nil {
			return listResult{}, err
		}
		// The page shows the list as of the first page's revision, as long as
		// etcd still has it (upstream answers 410 for a compacted one even
		// while its cache could serve it); the cache rebuilds that state from
		// its history (cache.ListPageAt) and, once its history no longer
		// reaches back that far, etcd's history is read.
		if s.compacted(ctx, t.Revision) {
			return listResult{}, continueExpired()
		}
		opts.After = t.StartKey
		page, err := c.ListPageAt(prefix, t.Revision, opts)
		if errors.Is(err, cache.ErrRevisionNotHeld) {
			return s.listFromStore(ctx, res, prefix, t.Revision, t.StartKey, limit, sel)
		}
		if err != nil {
			return listResult{}, storeError(err, res, "")
		}
		return listResultOf(page, sel), nil
	}

	rv, err := parseResourceVersion(q.string("resourceVersion"))
	if err != nil {
		return listResult{}, apierrors.NewBadRequest(err.Error())
	}
	if rv > 0 && q.string("resourceVersionMatch") == "Exact" {
		return s.listFromStore(ctx, res, prefix, rv, "", limit, sel)
	}
	minRevision := rv // "NotOlderThan"
	if q.string("resourceVersion") == "0" {
		minRevision = 1 // "any": whatever the cache has
	}
	opts.IndexValue = indexValueFor(res, sel)
	page, err := c.ListPage(ctx, prefix, minRevision, opts)
	if err != nil {
		return listResult{}, storeError(err, res, "")
	}
	return listResultOf(page, sel), nil
}

// indexValueFor returns the value of the watch cache's index
// (cacheIndexFor: pods by spec.nodeName) that sel requires, or "": a LIST of
// one node's pods, a kubelet's, visits only that node's pods.
func indexValueFor(res *resource, sel selectors) string {
	if cacheIndexFor(res) == nil {
		return ""
	}
	value, _ := sel.fields.RequiresExactMatch("spec.nodeName")
	return value
}

// continueExpired is upstream's answer to a continue token whose revision
// etcd has compacted: 410 Gone, reason Expired.
func continueExpired() error {
	return apierrors.NewGone("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.")
}

// listResultOf turns a page of the cache into a list response's page: a
// continue token naming the page's revision and last key when more matches
// follow, and remainingItemCount only without selectors (as upstream, which
// cannot count the matches it has not visited).
func listResultOf(page cache.Page, sel selectors) listResult {
	out := listResult{revision: page.Revision, items: make([]*storedObject, len(page.Entries))}
	for i, e := range page.Entries {
		out.items[i] = e.Object.(*storedObject)
	}
	if page.More && len(page.Entries) > 0 {
		out.next = encodeContinue(page.Revision, page.Entries[len(page.Entries)-1].Key)
		if sel.empty() {
			remaining := page.Remaining
			out.remaining = &remaining
		}
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
			return out, continueExpired()
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
