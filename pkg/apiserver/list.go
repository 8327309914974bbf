package apiserver

// Lists. A LIST is answered from the watch cache: the cache first catches up
// with etcd (a consistent read), then the response is assembled from each
// object's cached JSON. Pagination (limit/continue) pages through that
// snapshot; when a continue token names a revision the cache has moved past,
// the rest of the list is read from etcd's history at that revision.

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
	c := s.caches[res]

	if token := q.string("continue"); token != "" {
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
