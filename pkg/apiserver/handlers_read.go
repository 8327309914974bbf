package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver/response"
	"kplane/pkg/store"
	"kplane/pkg/store/cache"
)

// serveGet reads one object. Gets go to etcd, so they always see the
// latest write (upstream does the same for resourceVersion="").
func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	so, err := s.getStored(r.Context(), info.res, info.namespace, info.name)
	if err != nil {
		response.WriteError(w, err)
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
	case errors.Is(err, cache.ErrTooLargeRevision), errors.Is(err, store.ErrFutureRevision):
		return tooLargeResourceVersion(err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &apierrors.StatusError{ErrStatus: api.Status{Code: http.StatusGatewayTimeout, Reason: apierrors.ReasonTimeout,
			Message: "request did not complete within the allowed duration"}}
	}
	return err
}

// tooLargeResourceVersion is upstream's answer to a resourceVersion (or
// continue token) ahead of what exists: a 504 with the cause client-go's
// reflector recognises (storage.NewTooLargeResourceVersionError), not a 500.
// The message names only the two revisions, never the store's own error
// text. As upstream, the watch cache, which waited and may catch up, asks
// the client to retry after a second; etcd, which refused at once, does not.
func tooLargeResourceVersion(err error) *apierrors.StatusError {
	var requested, current int64
	retrySeconds := int32(0)
	var fromCache *cache.TooLargeRevisionError
	var fromStore *store.FutureRevisionError
	switch {
	case errors.As(err, &fromCache):
		requested, current, retrySeconds = fromCache.Requested, fromCache.Current, 1
	case errors.As(err, &fromStore):
		requested, current = fromStore.Requested, fromStore.Current
	}
	tooLarge := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", requested, current), retrySeconds)
	tooLarge.ErrStatus.Details.Causes = []api.StatusCause{{Type: api.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return tooLarge
}

// serveList answers a LIST, from the watch cache whenever it can: a plain
// list waits until the cache has caught up with etcd, so it is as fresh as a
// read from etcd, without decoding a single object.
func (s *Server) serveList(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	sel, err := parseSelectors(r, info.res)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	result, err := s.list(r.Context(), r, info.res, info.namespace, sel)
	if err != nil {
		response.WriteError(w, err)
		return
	}
	if response.TableRequested(r) {
		t := s.table(info.res, result.items, queryOf(r).string("includeObject"), true)
		t.ResourceVersion = strconv.FormatInt(result.revision, 10)
		t.Continue = result.next
		t.RemainingItemCount = result.remaining
		response.WriteJSONAs(w, response.ContentTypeTable, t)
		return
	}
	response.WriteRaw(w, http.StatusOK, response.ContentTypeJSON, encodeList(info.res, result))
}
