package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const testAdminToken = "admin-token"

// newTestServer serves a Server's handler, without informers, over a hub
// the test fills itself.
func newTestServer(t *testing.T) (*Server, *httptest.Server) {
	t.Helper()
	s := &Server{hub: NewHub(), auth: NewAuthenticator(testAdminToken)}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func get(t *testing.T, url string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

func TestRequestsWithoutCredentialsAreRefused(t *testing.T) {
	_, ts := newTestServer(t)
	for _, tt := range []struct {
		name, path string
		header     http.Header
		jsonStatus bool
	}{
		{name: "stream, no credentials", path: "/api/stream", jsonStatus: true},
		{name: "object API, wrong token", path: "/api/objects/x", header: bearer("guess"), jsonStatus: true},
		{name: "unknown API path", path: "/api/nothing", jsonStatus: true},
		{name: "page, no credentials", path: "/"},
		{name: "page, unknown cookie", path: "/js/main.js", header: http.Header{"Cookie": {sessionCookie + "=forged"}}},
		{name: "login without a token", path: "/login"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := get(t, ts.URL+tt.path, tt.header)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", resp.StatusCode)
			}
			if !tt.jsonStatus {
				return
			}
			var status struct {
				Kind, Status, Reason string
				Code                 int
			}
			if err := json.NewDecoder(resp.Body).Decode(&status); err != nil {
				t.Fatalf("401 body is not a JSON Status: %v", err)
			}
			if status.Kind != "Status" || status.Status != "Failure" || status.Reason != "Unauthorized" || status.Code != 401 {
				t.Errorf("Status = %+v", status)
			}
		})
	}
}

func TestAdminTokenIsAdmitted(t *testing.T) {
	_, ts := newTestServer(t)
	resp := get(t, ts.URL+"/", bearer(testAdminToken))
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `src="/js/main.js"`) {
		t.Fatalf("GET / with the admin token: %d\n%s", resp.StatusCode, body)
	}
}

func TestLoginLinkWorksOnce(t *testing.T) {
	s, ts := newTestServer(t)
	link := s.LoginURL(ts.URL)
	first := get(t, link, nil)
	if first.StatusCode != http.StatusSeeOther || first.Header.Get("Location") != "/" {
		t.Fatalf("first use: %d Location %q, want 303 to /", first.StatusCode, first.Header.Get("Location"))
	}
	cookies := first.Cookies()
	if len(cookies) != 1 || cookies[0].Name != sessionCookie || !cookies[0].HttpOnly {
		t.Fatalf("first use set cookies %+v, want one HttpOnly %s", cookies, sessionCookie)
	}
	page := get(t, ts.URL+"/", http.Header{"Cookie": {cookies[0].String()}})
	if page.StatusCode != http.StatusOK {
		t.Errorf("the session cookie got %d for the page", page.StatusCode)
	}
	if second := get(t, link, nil); second.StatusCode != http.StatusUnauthorized {
		t.Errorf("second use of the link: %d, want 401", second.StatusCode)
	}
	if another := get(t, s.LoginURL(ts.URL), nil); another.StatusCode != http.StatusSeeOther {
		t.Errorf("a new link: %d, want 303", another.StatusCode)
	}
}

// sseReader reads server-sent events from a stream.
type sseReader struct{ r *bufio.Reader }

// next returns the next event's type and data, skipping comments.
func (s sseReader) next(t *testing.T) (event, data string) {
	t.Helper()
	var lines []string
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			t.Fatalf("read stream: %v (event so far %q)", err, lines)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && event != "":
			return event, strings.Join(lines, "\n")
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			lines = append(lines, strings.TrimPrefix(line, "data: "))
		}
	}
}

func pod(uid, name, phase string) map[string]any {
	return map[string]any{"kind": "Pod", "metadata": map[string]any{"uid": uid, "name": name, "namespace": "default"},
		"status": map[string]any{"phase": phase}}
}

// openStream opens /api/stream as the admin and checks its Content-Type;
// the stream closes when the test ends.
func openStream(t *testing.T, baseURL string) sseReader {
	t.Helper()
	// The deadline only keeps a broken stream from hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/api/stream", nil)
	req.Header = bearer(testAdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	return sseReader{bufio.NewReader(resp.Body)}
}

func TestStreamSendsSnapshotThenChanges(t *testing.T) {
	s, ts := newTestServer(t)
	s.hub.Upsert("Pod", pod("u1", "web-1", "Pending"))

	events := openStream(t, ts.URL)

	event, data := events.next(t)
	var snapshot snapshotEvent
	if err := json.Unmarshal([]byte(data), &snapshot); err != nil || event != "snapshot" {
		t.Fatalf("first event %s %s (%v), want a snapshot", event, data, err)
	}
	if len(snapshot.Objects) != 1 || snapshot.Objects[0].UID != "u1" {
		t.Fatalf("snapshot %+v, want pod u1", snapshot.Objects)
	}

	s.hub.Upsert("Pod", pod("u1", "web-1", "Running"))
	event, data = events.next(t)
	var item Item
	if err := json.Unmarshal([]byte(data), &item); err != nil || event != "upsert" {
		t.Fatalf("event %s %s (%v), want upsert", event, data, err)
	}
	if phase := stringAt(item.Object, "status", "phase"); item.UID != "u1" || phase != "Running" {
		t.Errorf("upsert %+v, want u1 Running", item)
	}

	s.hub.Delete("Pod", pod("u1", "web-1", "Running"))
	event, data = events.next(t)
	if event != "delete" || data != `{"kind":"Pod","uid":"u1"}` {
		t.Errorf("event %s %s, want delete of u1", event, data)
	}
}

func TestObjectAPIShowsYAMLAndLastChange(t *testing.T) {
	s, ts := newTestServer(t)
	deployment := func(replicas int, rv string) map[string]any {
		return map[string]any{"kind": "Deployment", "metadata": map[string]any{"uid": "d1", "name": "ng-dep", "resourceVersion": rv},
			"spec": map[string]any{"replicas": replicas}}
	}
	s.hub.Upsert("Deployment", deployment(4, "10"))

	var detail objectDetail
	resp := get(t, ts.URL+"/api/objects/d1", bearer(testAdminToken))
	if err := json.NewDecoder(resp.Body).Decode(&detail); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(detail.YAML, "  replicas: 4\n") || len(detail.Diff) != 0 {
		t.Fatalf("one version: yaml %q diff %+v", detail.YAML, detail.Diff)
	}

	s.hub.Upsert("Deployment", deployment(3, "11"))
	resp = get(t, ts.URL+"/api/objects/d1", bearer(testAdminToken))
	detail = objectDetail{}
	if err := json.NewDecoder(resp.Body).Decode(&detail); err != nil {
		t.Fatal(err)
	}
	diff := render(detail.Diff)
	for _, want := range []string{`-  resourceVersion: "10"`, `+  resourceVersion: "11"`, "-  replicas: 4", "+  replicas: 3", " kind: Deployment"} {
		if !strings.Contains(diff, want+"\n") {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	if detail.PreviousResourceVersion != "10" {
		t.Errorf("previousResourceVersion %q, want 10", detail.PreviousResourceVersion)
	}

	missing := get(t, ts.URL+"/api/objects/nope", bearer(testAdminToken))
	if missing.StatusCode != http.StatusNotFound {
		t.Errorf("unknown uid: %d, want 404", missing.StatusCode)
	}
}
