package e2e

import (
	"regexp"
	"testing"

	"kplane/test/framework"
)

// TestMetrics: /metrics counts requests by verb, resource and code.
func TestMetrics(t *testing.T) {
	t.Parallel()
	a := framework.StartAPIServer(t)
	mustOK(t, a.Do(t, "GET", "/api/v1/namespaces/default/configmaps", nil), 200)
	a.Do(t, "GET", "/api/v1/namespaces/default/configmaps/missing", nil)
	body := string(mustOK(t, a.Do(t, "GET", "/metrics", nil), 200))
	for _, want := range []string{
		`apiserver_request_total\{code="200",resource="configmaps",subresource="",verb="list"\} 1`,
		`apiserver_request_total\{code="404",resource="configmaps",subresource="",verb="get"\} 1`,
		`apiserver_request_duration_seconds_count\{resource="configmaps",subresource="",verb="list"\} 1`,
		`go_goroutines \d+`,
	} {
		if !regexp.MustCompile(want).MatchString(body) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if r := a.DoWithToken(t, "", "GET", "/metrics", nil); r.Code != 401 {
		t.Errorf("/metrics without a token: %d", r.Code)
	}
}
