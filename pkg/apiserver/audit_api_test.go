package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/apiserver"
	"kplane/pkg/audit"
	"kplane/pkg/auth"
	"kplane/test/framework"
)

// auditTestPolicy records configmaps in full, secrets without their
// bodies (and without the RequestReceived stage), health checks not at
// all, and everything else at Metadata.
const auditTestPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
- level: Metadata
  resources:
  - group: ""
    resources: ["secrets"]
  omitStages: ["RequestReceived"]
- level: Metadata
`

// auditedServer is an apiserver with auditTestPolicy, logging to logPath.
type auditedServer struct {
	*framework.APIServer
	logPath string
}

func startAuditedServer(t *testing.T, configure func(*apiserver.Options)) auditedServer {
	t.Helper()
	dir := t.TempDir()
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditTestPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "logs", "audit.log")
	a := framework.StartAPIServerWith(t, filepath.Join(dir, "data"), func(o *apiserver.Options) {
		o.AuditPolicyFile, o.AuditLogPath = policy, logPath
		if configure != nil {
			configure(o)
		}
	})
	return auditedServer{APIServer: a, logPath: logPath}
}

// events returns the Events logged for one audit ID, in order.
func (s auditedServer) events(t *testing.T, auditID string) []audit.Event {
	t.Helper()
	var out []audit.Event
	for _, ev := range s.allEvents(t) {
		if ev.AuditID == auditID {
			out = append(out, ev)
		}
	}
	return out
}

// allEvents returns every Event in the log.
func (s auditedServer) allEvents(t *testing.T) []audit.Event {
	t.Helper()
	f, err := os.Open(s.logPath)
	if err != nil {
		t.Fatalf("open audit log: %v", err)
	}
	defer f.Close()
	var out []audit.Event
	scanner := bufio.NewScanner(f)
	scanner.Buffer(nil, 16<<20)
	for scanner.Scan() {
		var ev audit.Event
		if err := json.Unmarshal(scanner.Bytes(), &ev); err != nil {
			t.Fatalf("audit log line is not an Event: %v: %s", err, scanner.Text())
		}
		out = append(out, ev)
	}
	return out
}

// stages lists the events' stages.
func stages(events []audit.Event) []audit.Stage {
	var out []audit.Stage
	for _, ev := range events {
		out = append(out, ev.Stage)
	}
	return out
}

// TestAuditLogRecordsRequestsAtThePolicysLevels: a create and an update of
// a ConfigMap are logged with both bodies, a Secret's create without
// them, a failed authentication with no user, a watch with
// ResponseStarted; health checks are not logged; every response carries
// its Audit-Id.
func TestAuditLogRecordsRequestsAtThePolicysLevels(t *testing.T) {
	s := startAuditedServer(t, func(o *apiserver.Options) {
		o.AuthorizationModes = []string{apiserver.AuthorizationModeAlwaysAllow}
	})
	alice := s.TokenFor(t, auth.User{Name: "alice", Groups: []string{"devs"}})

	created := s.DoWithToken(t, alice, http.MethodPost, "/api/v1/namespaces/default/configmaps",
		[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"audited"},"data":{"colour":"blue"}}`))
	if created.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", created.Code, created.Body)
	}
	createID := created.Header.Get("Audit-Id")
	if createID == "" {
		t.Fatalf("create answered without an Audit-Id header")
	}
	events := s.events(t, createID)
	if got := stages(events); len(got) != 2 || got[0] != audit.StageRequestReceived || got[1] != audit.StageResponseComplete {
		t.Fatalf("create's stages: %v, want RequestReceived, ResponseComplete", got)
	}
	complete := events[1]
	if complete.Level != audit.LevelRequestResponse || complete.Verb != "create" || complete.User.Username != "alice" ||
		complete.ObjectRef == nil || complete.ObjectRef.Resource != "configmaps" || complete.ObjectRef.Namespace != "default" || complete.ObjectRef.Name != "audited" ||
		complete.ResponseStatus == nil || complete.ResponseStatus.Code != http.StatusCreated {
		t.Errorf("create's ResponseComplete: %+v", complete)
	}
	if !strings.Contains(string(complete.RequestObject), `"colour":"blue"`) || !strings.Contains(string(complete.ResponseObject), `"uid"`) {
		t.Errorf("create's bodies: request %s, response %s", complete.RequestObject, complete.ResponseObject)
	}
	if complete.Annotations["authorization.k8s.io/decision"] != "allow" {
		t.Errorf("create's annotations: %v", complete.Annotations)
	}
	if events[0].RequestObject != nil || events[0].ResponseStatus != nil {
		t.Errorf("RequestReceived already has a body or status: %+v", events[0])
	}

	updated := s.DoWithToken(t, alice, http.MethodPut, "/api/v1/namespaces/default/configmaps/audited",
		[]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"audited"},"data":{"colour":"green"}}`))
	if updated.Code != http.StatusOK {
		t.Fatalf("update: %d %s", updated.Code, updated.Body)
	}
	events = s.events(t, updated.Header.Get("Audit-Id"))
	if len(events) != 2 || events[1].Verb != "update" || events[1].ObjectRef.Name != "audited" ||
		!strings.Contains(string(events[1].RequestObject), `"green"`) {
		t.Errorf("update's events: %+v", events)
	}

	secret := s.DoWithToken(t, alice, http.MethodPost, "/api/v1/namespaces/default/secrets",
		[]byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"password":"hunter2"}}`))
	if secret.Code != http.StatusCreated {
		t.Fatalf("create secret: %d %s", secret.Code, secret.Body)
	}
	events = s.events(t, secret.Header.Get("Audit-Id"))
	if got := stages(events); len(got) != 1 || got[0] != audit.StageResponseComplete {
		t.Fatalf("secret's stages: %v, want ResponseComplete only", got)
	}
	if events[0].Level != audit.LevelMetadata || events[0].RequestObject != nil || events[0].ResponseObject != nil ||
		events[0].ObjectRef.Name != "s" {
		t.Errorf("secret's event records a body at Metadata: %+v", events[0])
	}

	// A failure's Status is recorded (at Metadata too), and the client
	// may choose the audit ID.
	missing := s.DoWithToken(t, alice, http.MethodGet, "/api/v1/namespaces/default/secrets/none", nil, "Audit-ID", "chosen-by-client")
	if missing.Code != http.StatusNotFound || missing.Header.Get("Audit-Id") != "chosen-by-client" {
		t.Fatalf("get missing: %d, Audit-Id %q", missing.Code, missing.Header.Get("Audit-Id"))
	}
	events = s.events(t, "chosen-by-client")
	if len(events) != 1 || events[0].ResponseStatus.Code != 404 || events[0].ResponseStatus.Reason != "NotFound" ||
		!strings.Contains(events[0].ResponseStatus.Message, `"none" not found`) {
		t.Errorf("404's event: %+v", events)
	}

	// kubectl's typed create sends protobuf: the Event still names the
	// object and records its body as JSON.
	framework.RequireKubectl(t)
	s.MustKubectl(t, "create", "configmap", "typed", "--from-literal=sent=protobuf")
	var typed []audit.Event
	for _, ev := range s.allEvents(t) {
		if ev.Verb == "create" && ev.ObjectRef != nil && ev.ObjectRef.Name == "typed" && ev.Stage == audit.StageResponseComplete {
			typed = append(typed, ev)
		}
	}
	if len(typed) != 1 || !strings.Contains(string(typed[0].RequestObject), `"sent":"protobuf"`) {
		t.Errorf("kubectl create's events: %+v", typed)
	}

	// Authentication failures: one ResponseStarted event, no user.
	refused := s.DoWithToken(t, "not-a-token", http.MethodGet, "/api/v1/namespaces/default/configmaps", nil)
	if refused.Code != http.StatusUnauthorized {
		t.Fatalf("bad token: %d", refused.Code)
	}
	events = s.events(t, refused.Header.Get("Audit-Id"))
	if len(events) != 1 || events[0].Stage != audit.StageResponseStarted || events[0].User.Username != "" ||
		events[0].ResponseStatus.Code != 401 || events[0].ResponseStatus.Message != "Authentication failed, attempted: bearer" {
		t.Errorf("401's events: %+v", events)
	}

	// Health checks are None.
	health := s.DoWithToken(t, "", http.MethodGet, "/healthz", nil)
	if health.Code != http.StatusOK || len(s.events(t, health.Header.Get("Audit-Id"))) != 0 {
		t.Errorf("/healthz: %d, logged %d events", health.Code, len(s.events(t, health.Header.Get("Audit-Id"))))
	}

	// A watch is long-running: ResponseStarted when it starts, then
	// ResponseComplete when it ends.
	ctx, cancel := context.WithCancel(context.Background())
	watch := s.Stream(t, ctx, "/api/v1/namespaces/default/secrets?watch=true")
	watchID := watch.Header.Get("Audit-Id")
	cancel()
	watch.Body.Close()
	// The watch ends on the server's side a moment after the client
	// leaves; wait for its last stage (a deadline, not a measurement).
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		got := stages(s.events(t, watchID))
		return len(got) == 2 && got[0] == audit.StageResponseStarted && got[1] == audit.StageResponseComplete,
			fmt.Sprintf("watch's stages: %v", got)
	})
}

// TestAuditLogRecordsForbiddenAndImpersonatedRequests runs with RBAC: a
// request RBAC refuses is logged with its 403 and the authorizer's
// decision, and a request made with --as records both the user who
// authenticated and the one impersonated.
func TestAuditLogRecordsForbiddenAndImpersonatedRequests(t *testing.T) {
	s := startAuditedServer(t, func(o *apiserver.Options) {
		o.AuthorizationModes = []string{apiserver.AuthorizationModeNode, apiserver.AuthorizationModeRBAC}
	})
	mallory := s.TokenFor(t, auth.User{Name: "mallory"})
	forbidden := s.DoWithToken(t, mallory, http.MethodGet, "/api/v1/namespaces/default/secrets", nil)
	if forbidden.Code != http.StatusForbidden {
		t.Fatalf("mallory lists secrets: %d %s, want 403", forbidden.Code, forbidden.Body)
	}
	events := s.events(t, forbidden.Header.Get("Audit-Id"))
	if len(events) != 1 || events[0].Stage != audit.StageResponseComplete || events[0].User.Username != "mallory" ||
		events[0].ResponseStatus.Code != 403 || events[0].ResponseStatus.Reason != "Forbidden" ||
		events[0].Annotations["authorization.k8s.io/decision"] != "forbid" {
		t.Errorf("forbidden list's events: %+v", events)
	}

	// The admin acts as alice (kubectl --as alice): the policy matched the
	// admin, and the Event says whom they impersonated.
	impersonated := s.Do(t, http.MethodGet, "/api/v1/namespaces/default/configmaps", nil, "Impersonate-User", "alice")
	events = s.events(t, impersonated.Header.Get("Audit-Id"))
	if len(events) != 2 || events[1].User.Username != "kubernetes-admin" || events[1].ImpersonatedUser == nil ||
		events[1].ImpersonatedUser.Username != "alice" {
		t.Errorf("impersonated list (%d): events %+v", impersonated.Code, events)
	}
}
