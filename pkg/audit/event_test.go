package audit

import (
	"bufio"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
)

// TestEventJSON: an Event is written with upstream's field names,
// microsecond timestamps in UTC, and no empty optional fields.
func TestEventJSON(t *testing.T) {
	r := httptest.NewRequest("POST", "/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl", nil)
	r.RemoteAddr = "127.0.0.1:50000"
	r.Header.Set("User-Agent", "kubectl/v1.33.0")
	r.Header.Set("X-Forwarded-For", "10.0.0.1, 10.0.0.2")
	info := authorizer.ParseRequestInfo(r)
	user := auth.User{Name: "alice", Groups: []string{"system:authenticated"}}
	received := time.Date(2026, 11, 27, 20, 41, 2, 123456789, time.FixedZone("CET", 3600))
	ev := NewEvent(r, info, &user, LevelMetadata, "0d4b5e2c-0000-4000-8000-000000000001", received)
	ev.Stage = StageResponseComplete
	ev.StageTimestamp = MicroTime(received.Add(1500 * time.Microsecond))
	ev.ResponseStatus = &api.Status{Code: 201}

	data, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	got := string(data)
	for _, want := range []string{
		`"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"0d4b5e2c-0000-4000-8000-000000000001","stage":"ResponseComplete"`,
		`"requestURI":"/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl","verb":"create"`,
		`"user":{"username":"alice","groups":["system:authenticated"]}`,
		`"sourceIPs":["10.0.0.1","10.0.0.2","127.0.0.1"],"userAgent":"kubectl/v1.33.0"`,
		`"objectRef":{"resource":"deployments","namespace":"default","apiGroup":"apps","apiVersion":"v1"}`,
		`"responseStatus":{"metadata":{},"code":201}`,
		`"requestReceivedTimestamp":"2026-11-27T19:41:02.123456Z","stageTimestamp":"2026-11-27T19:41:02.124956Z"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("event JSON lacks %s:\n%s", want, got)
		}
	}
	for _, absent := range []string{"impersonatedUser", "requestObject", "responseObject", "annotations"} {
		if strings.Contains(got, absent) {
			t.Errorf("event JSON has an empty %s:\n%s", absent, got)
		}
	}
	var back Event
	if err := json.Unmarshal(data, &back); err != nil || time.Time(back.RequestReceivedTimestamp).UnixMicro() != received.UnixMicro() {
		t.Errorf("round trip: %v, %v", err, time.Time(back.RequestReceivedTimestamp))
	}
}

func TestNonResourceEventHasNoObjectRef(t *testing.T) {
	r := httptest.NewRequest("GET", "/metrics", nil)
	ev := NewEvent(r, authorizer.ParseRequestInfo(r), nil, LevelMetadata, "id", time.Now())
	if ev.ObjectRef != nil || ev.Verb != "get" || ev.User.Username != "" {
		t.Errorf("event %+v", ev)
	}
}

func TestStripManagedFields(t *testing.T) {
	in := `{"kind":"List","metadata":{"managedFields":[1]},"items":[{"metadata":{"name":"a","managedFields":[{"manager":"kubectl"}]}}]}`
	out := string(StripManagedFields(json.RawMessage(in)))
	if strings.Contains(out, "managedFields") || !strings.Contains(out, `"name":"a"`) {
		t.Errorf("stripped: %s", out)
	}
	plain := `{"metadata":{"name":"a"}}`
	if got := string(StripManagedFields(json.RawMessage(plain))); got != plain {
		t.Errorf("an object without managedFields changed: %s", got)
	}
}

// TestLogBackendWritesJSONLines: each Event is one line, appended.
func TestLogBackendWritesJSONLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "audit.log")
	b, err := NewLogBackend(LogOptions{Path: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, stage := range []Stage{StageRequestReceived, StageResponseComplete} {
		b.ProcessEvent(&Event{Kind: "Event", APIVersion: "audit.k8s.io/v1", Stage: stage, AuditID: "x"})
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stages []Stage
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		var ev Event
		if err := json.Unmarshal(scanner.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", scanner.Text(), err)
		}
		stages = append(stages, ev.Stage)
	}
	if len(stages) != 2 || stages[0] != StageRequestReceived || stages[1] != StageResponseComplete {
		t.Errorf("stages in the log: %v", stages)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("log file mode: %v %v, want 0600", info.Mode(), err)
	}
}
