package apiserver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"kplane/pkg/store"
)

// etcdDown is a store whose every read fails, as when etcd is gone.
type etcdDown struct{ store.Interface }

func (etcdDown) CurrentRevision(context.Context) (int64, error) {
	return 0, errors.New("context deadline exceeded")
}

// TestHealthWithEtcdDown: when etcd does not answer, /readyz is a 500
// listing every check with the failed one marked, and /livez/etcd gives
// the reason.
func TestHealthWithEtcdDown(t *testing.T) {
	down := &Server{store: etcdDown{}}
	rec := httptest.NewRecorder()
	down.serveHealth(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil), "readyz")
	if want := "[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed\n"; rec.Code != http.StatusInternalServerError || rec.Body.String() != want {
		t.Errorf("readyz with etcd down: %d %q, want 500 %q", rec.Code, rec.Body, want)
	}
	rec = httptest.NewRecorder()
	down.serveOneHealthCheck(rec, httptest.NewRequest(http.MethodGet, "/livez/etcd", nil), "etcd")
	if want := "internal server error: context deadline exceeded\n"; rec.Code != http.StatusInternalServerError || rec.Body.String() != want {
		t.Errorf("livez/etcd with etcd down: %d %q, want 500 %q", rec.Code, rec.Body, want)
	}
}
