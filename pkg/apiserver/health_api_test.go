package apiserver_test

import (
	"net/http"
	"testing"

	"kplane/test/framework"
)

// TestHealthEndpointsAsUpstream: on a live apiserver, "ok", the verbose
// list, exclusion (and a warning for an unknown name) and one check alone.
func TestHealthEndpointsAsUpstream(t *testing.T) {
	a := framework.StartAPIServer(t)
	for _, c := range []struct{ path, want string }{
		{"/readyz", "ok"},
		{"/livez?verbose", "[+]ping ok\n[+]etcd ok\nlivez check passed\n"},
		{"/readyz?verbose&exclude=etcd", "[+]ping ok\n[+]etcd excluded: ok\nreadyz check passed\n"},
		{"/healthz?verbose&exclude=nope", "[+]ping ok\n[+]etcd ok\nwarn: some health checks cannot be excluded: no matches for \"nope\"\nhealthz check passed\n"},
		{"/readyz/etcd", "ok"},
	} {
		resp := a.Do(t, http.MethodGet, c.path, nil)
		if resp.Code != http.StatusOK || string(resp.Body) != c.want {
			t.Errorf("GET %s: %d %q, want 200 %q", c.path, resp.Code, resp.Body, c.want)
		}
	}
	if resp := a.Do(t, http.MethodGet, "/readyz/nope", nil); resp.Code != http.StatusNotFound {
		t.Errorf("GET /readyz/nope: %d, want 404", resp.Code)
	}
}
