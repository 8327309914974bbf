package apiserver_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kplane/pkg/apiserver"
	"kplane/pkg/debug"
	"kplane/test/framework"
)

// TestAPIErrorFaultThroughTheDebugAPI installs, uses, lists and clears an
// api-error rule the way `ctl fault api-error` does.
func TestAPIErrorFaultThroughTheDebugAPI(t *testing.T) {
	j := debug.NewJournal("apiserver", 100, nil)
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) { o.Journal = j })
	srv := httptest.NewServer(j.Handler(nil, false))
	defer srv.Close()
	ctx := context.Background()
	dc := &debug.Client{}
	ep := debug.Endpoint{Component: "apiserver", URL: srv.URL}

	err := dc.Post(ctx, ep, debug.PathFaultAPIError, debug.APIErrorRule{Resource: "configmap", Verb: "create", Code: 500, For: time.Minute}, nil)
	if err == nil || !strings.Contains(err.Error(), `doesn't have a resource type "configmap"`) || !strings.Contains(err.Error(), "(400)") {
		t.Errorf("a rule for an unserved resource: err %v, want a 400 naming it", err)
	}
	var rule debug.APIErrorRule
	if err := dc.Post(ctx, ep, debug.PathFaultAPIError, debug.APIErrorRule{Resource: "configmaps", Verb: "create", Code: 500, For: time.Minute}, &rule); err != nil {
		t.Fatal(err)
	}
	if rule.ID != 1 || rule.Expires.IsZero() {
		t.Errorf("installed %+v, want ID 1 with an expiry", rule)
	}

	body := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app"}}`)
	resp := a.Do(t, "POST", "/api/v1/namespaces/default/configmaps", body)
	if resp.Code != 500 || !strings.Contains(string(resp.Body), "injected fault (rule 1 of `ctl fault api-error`)") {
		t.Errorf("create under the rule: %d %s, want a 500 saying it is injected", resp.Code, resp.Body)
	}
	if resp := a.Do(t, "GET", "/api/v1/namespaces/default/configmaps", nil); resp.Code != 200 {
		t.Errorf("list (another verb) under the rule: %d, want 200", resp.Code)
	}

	var active []debug.APIErrorRule
	if err := dc.Get(ctx, ep, debug.PathFaultAPIError, &active); err != nil {
		t.Fatal(err)
	}
	if len(active) != 1 || active[0].Hits != 1 {
		t.Errorf("active rules %+v, want rule 1 with one hit", active)
	}
	var cleared []debug.APIErrorRule
	if err := dc.Delete(ctx, ep, debug.PathFaultAPIError, &cleared); err != nil {
		t.Fatal(err)
	}
	if len(cleared) != 1 {
		t.Errorf("cleared %+v, want rule 1", cleared)
	}
	if resp := a.Do(t, "POST", "/api/v1/namespaces/default/configmaps", body); resp.Code != 201 {
		t.Errorf("create after clearing: %d %s, want 201", resp.Code, resp.Body)
	}
}
