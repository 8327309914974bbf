package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/debug"
)

func TestFaultRuleMatchesAsRBACDoes(t *testing.T) {
	cases := []struct {
		rule, verb                          string
		group, plural, subresource, reqVerb string
		want                                bool
	}{
		{"replicasets", "create", "apps", "replicasets", "", "create", true},
		{"replicasets.apps", "create", "apps", "replicasets", "", "create", true},
		{"replicasets.extensions", "create", "apps", "replicasets", "", "create", false},
		{"replicasets", "create", "apps", "replicasets", "", "update", false},
		{"replicasets", "*", "apps", "replicasets", "", "delete", true},
		{"pods", "update", "", "pods", "status", "update", false}, // "pods" is not "pods/status"
		{"pods/status", "update", "", "pods", "status", "update", true},
		{"pods/status", "update", "", "pods", "", "update", false},
		{"pods/binding", "create", "", "pods", "binding", "create", true},
		{"deployments", "create", "apps", "replicasets", "", "create", false},
	}
	for _, c := range cases {
		plural, group, sub, err := parseFaultResource(c.rule)
		if err != nil {
			t.Fatalf("parse %q: %v", c.rule, err)
		}
		r := faultRule{APIErrorRule: debug.APIErrorRule{Resource: c.rule, Verb: c.verb}, plural: plural, group: group, subresource: sub}
		if got := r.matches(c.group, c.plural, c.subresource, c.reqVerb); got != c.want {
			t.Errorf("rule %s %s on %s %s.%s/%s: matches %v, want %v", c.verb, c.rule, c.reqVerb, c.plural, c.group, c.subresource, got, c.want)
		}
	}
}

func TestFaultRuleRefusesWhatItCannotInject(t *testing.T) {
	f := newFaultInjector(clock.NewFake(time.Unix(0, 0)), nil)
	for _, c := range []struct {
		rule debug.APIErrorRule
		want string
	}{
		{debug.APIErrorRule{Resource: "pods", Verb: "create", Code: 404, For: time.Minute}, "code 404"},
		{debug.APIErrorRule{Resource: "pods", Verb: "create", For: time.Minute}, "a code (409, 429 or 500), a delay, or both"},
		{debug.APIErrorRule{Resource: "pods", Verb: "post", Code: 500, For: time.Minute}, `verb "post"`},
		{debug.APIErrorRule{Resource: "pods", Verb: "create", Code: 500}, "for 0s"},
		{debug.APIErrorRule{Resource: "pods", Verb: "create", Code: 500, For: 2 * time.Hour}, "for 2h0m0s"},
		{debug.APIErrorRule{Resource: "", Verb: "create", Code: 500, For: time.Minute}, "plural resource name"},
		{debug.APIErrorRule{Resource: "pods/status/x", Verb: "create", Code: 500, For: time.Minute}, "plural resource name"},
	} {
		if _, err := f.add(c.rule); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("add(%+v) = %v, want an error saying %q", c.rule, err, c.want)
		}
	}
	if got := f.active(); len(got) != 0 {
		t.Errorf("refused rules were installed: %+v", got)
	}
}

func TestFaultRuleExpires(t *testing.T) {
	clk := clock.NewFake(time.Unix(1000, 0))
	f := newFaultInjector(clk, nil)
	rule, err := f.add(debug.APIErrorRule{Resource: "replicasets", Verb: "create", Code: 500, For: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rule.ID != 1 || !rule.Expires.Equal(time.Unix(1010, 0)) {
		t.Errorf("installed %+v, want ID 1 expiring at 1010", rule)
	}
	clk.Step(9 * time.Second)
	if got, _, ok := f.match("apps", "replicasets", "", "create"); !ok || got.Hits != 1 {
		t.Errorf("9s in: match = %+v, %v; want the rule, hit once", got, ok)
	}
	clk.Step(time.Second)
	if _, _, ok := f.match("apps", "replicasets", "", "create"); ok {
		t.Error("10s in: the rule still matches; it should have expired")
	}
	if got := f.active(); len(got) != 0 {
		t.Errorf("active after expiry = %+v, want none", got)
	}
}

// injectRequest runs inject for a create of replicasets in default, and
// returns the recorder and whether inject answered.
func injectRequest(f *faultInjector, ctx context.Context) (*httptest.ResponseRecorder, bool) {
	res := &resource{group: "apps", version: "v1", plural: "replicasets", namespaced: true}
	info := &requestInfo{verb: "create", res: res, namespace: "default"}
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/apis/apps/v1/namespaces/default/replicasets", nil).WithContext(ctx)
	return w, f.inject(w, r, info)
}

func TestInjectedFaultsCarryUpstreamStatuses(t *testing.T) {
	for _, c := range []struct {
		code       int
		reason     string
		retryAfter string
	}{
		{409, "Conflict", ""},
		{429, "TooManyRequests", "1"},
		{500, "InternalError", ""},
	} {
		j := debug.NewJournal("apiserver", 10, nil)
		f := newFaultInjector(clock.NewFake(time.Unix(0, 0)), j)
		if _, err := f.add(debug.APIErrorRule{Resource: "replicasets.apps", Verb: "create", Code: c.code, For: time.Minute}); err != nil {
			t.Fatal(err)
		}
		w, answered := injectRequest(f, context.Background())
		var status api.Status
		_ = json.Unmarshal(w.Body.Bytes(), &status)
		if !answered || w.Code != c.code || status.Reason != c.reason || !strings.Contains(status.Message, "injected fault (rule 1") {
			t.Errorf("code %d: answered %v with %d %+v; want %d %s saying it is injected", c.code, answered, w.Code, status, c.code, c.reason)
		}
		if got := w.Header().Get("Retry-After"); got != c.retryAfter {
			t.Errorf("code %d: Retry-After %q, want %q", c.code, got, c.retryAfter)
		}
		records, _ := j.After(0)
		if len(records) != 1 || records[0].Type != debug.TypeEvent || records[0].Resource != "replicasets.apps" || records[0].Field("code") != itoa(int64(c.code)) {
			t.Errorf("code %d: journal %+v, want one event for replicasets.apps", c.code, records)
		}
	}
}

func TestInjectedDelayHoldsTheRequestUntilItPasses(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	f := newFaultInjector(clk, nil)
	if _, err := f.add(debug.APIErrorRule{Resource: "replicasets", Verb: "create", Delay: 10 * time.Second, For: time.Minute}); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		_, answered := injectRequest(f, context.Background())
		done <- answered
	}()
	for clk.Waiters() == 0 {
		time.Sleep(time.Millisecond) // until the request waits on the delay
	}
	select {
	case <-done:
		t.Fatal("the request went on before its delay passed")
	default:
	}
	clk.Step(10 * time.Second)
	if answered := <-done; answered {
		t.Error("a delay-only rule answered the request; it should hold it, then let it be served")
	}
}

func TestClearingTheRulesReleasesHeldRequests(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	f := newFaultInjector(clk, nil)
	if _, err := f.add(debug.APIErrorRule{Resource: "replicasets", Verb: "create", Code: 500, Delay: time.Minute, For: time.Hour}); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() {
		_, answered := injectRequest(f, context.Background())
		done <- answered
	}()
	for clk.Waiters() == 0 {
		time.Sleep(time.Millisecond)
	}
	if cleared := f.clear(); len(cleared) != 1 {
		t.Errorf("clear returned %+v, want the one rule", cleared)
	}
	if answered := <-done; answered {
		t.Error("a request released by clear was failed; it should be served")
	}
	if _, _, ok := f.match("apps", "replicasets", "", "create"); ok {
		t.Error("a cleared rule still matches")
	}
}
