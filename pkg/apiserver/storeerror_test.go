package apiserver

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/store"
	"kplane/pkg/store/cache"
)

// A resourceVersion ahead of what exists — the watch cache gave up waiting
// for it, or etcd was asked to read at it — is upstream's 504 Timeout with
// the ResourceVersionTooLarge cause client-go's reflector relists on, not
// a 500 (found by FuzzListWatchQuery).
func TestStoreErrorTooLargeResourceVersion(t *testing.T) {
	pods := newRegistry(builtinResources()).lookup("", "v1", "pods")
	for _, err := range []error{
		fmt.Errorf("list /registry/pods/: %w: waited 3s for revision 99, the cache is at 7", cache.ErrTooLargeRevision),
		fmt.Errorf("list at revision 99: %w", store.ErrFutureRevision),
	} {
		var se *apierrors.StatusError
		if !errors.As(storeError(err, pods, ""), &se) {
			t.Fatalf("storeError(%v) is not a Status", err)
		}
		status := se.Status()
		if status.Code != http.StatusGatewayTimeout || status.Reason != apierrors.ReasonTimeout || status.Details == nil ||
			len(status.Details.Causes) != 1 || status.Details.Causes[0].Type != "ResourceVersionTooLarge" {
			t.Errorf("storeError(%v) = %+v, want 504 Timeout with the cause ResourceVersionTooLarge", err, status)
		}
	}
}
