package apiserver

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/store"
	"kplane/pkg/store/cache"
)

// A resourceVersion ahead of what exists — the watch cache gave up waiting
// for it, or etcd was asked to read at it — is upstream's 504 Timeout with
// the ResourceVersionTooLarge cause client-go's reflector relists on, not
// a 500 (found by FuzzListWatchQuery). The message is upstream's and names
// the two revisions only, never a store key or the store's own error text.
func TestStoreErrorTooLargeResourceVersion(t *testing.T) {
	pods := newRegistry(builtinResources()).lookup("", "v1", "pods")
	for _, tc := range []struct {
		err   error
		retry int32
	}{
		{fmt.Errorf("list /registry/pods/: %w", &cache.TooLargeRevisionError{Requested: 99, Current: 7, Waited: 3 * time.Second}), 1},
		{fmt.Errorf("list \"/registry/pods/\" at revision 99: %w", &store.FutureRevisionError{Requested: 99, Current: 7}), 0},
	} {
		var se *apierrors.StatusError
		if !errors.As(storeError(tc.err, pods, ""), &se) {
			t.Fatalf("storeError(%v) is not a Status", tc.err)
		}
		status := se.Status()
		if status.Code != http.StatusGatewayTimeout || status.Reason != apierrors.ReasonTimeout || status.Details == nil ||
			len(status.Details.Causes) != 1 || status.Details.Causes[0].Type != api.CauseTypeResourceVersionTooLarge {
			t.Errorf("storeError(%v) = %+v, want 504 Timeout with the cause ResourceVersionTooLarge", tc.err, status)
			continue
		}
		if want := "Timeout: Too large resource version: 99, current: 7"; status.Message != want {
			t.Errorf("storeError(%v) message %q, want %q", tc.err, status.Message, want)
		}
		if status.Details.RetryAfterSeconds != tc.retry {
			t.Errorf("storeError(%v) retryAfterSeconds %d, want %d", tc.err, status.Details.RetryAfterSeconds, tc.retry)
		}
	}
}
