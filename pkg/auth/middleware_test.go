package auth

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
)

// echoUser answers with who the request was authenticated as, and whether
// the Authorization header reached it.
var echoUser = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	u, ok := UserFrom(r.Context())
	if !ok {
		http.Error(w, "no user in context", http.StatusInternalServerError)
		return
	}
	fmt.Fprintf(w, "%s %v authorization=%q", u.Name, u.Groups, r.Header.Get("Authorization"))
})

func TestMiddleware(t *testing.T) {
	tf := mustEnsureTokens(t, t.TempDir())
	admin, _ := tf.TokenFor(AdminUserName)
	handler := Middleware(tokenChain(tf), append(DefaultPublicPaths, "/debug/public/*"))(echoUser)

	tests := []struct {
		name          string
		path          string
		authorization string
		wantCode      int
		wantBody      string // for 200 answers
	}{
		{"admin token", "/api/v1/pods", "Bearer " + admin, 200, `kubernetes-admin [system:masters system:authenticated] authorization=""`},
		{"scheme is case-insensitive", "/api", "bearer " + admin, 200, `kubernetes-admin [system:masters system:authenticated] authorization=""`},
		{"text after the token is ignored", "/api", "Bearer " + admin + " extra", 200, `kubernetes-admin [system:masters system:authenticated] authorization=""`},
		{"no credentials", "/api/v1/pods", "", 401, ""},
		{"wrong token", "/api/v1/pods", "Bearer nope", 401, ""},
		{"empty bearer token", "/api", "Bearer ", 401, ""},
		{"other scheme", "/api", "Basic YWRtaW46YWRtaW4=", 401, ""},
		{"public path, no credentials", "/healthz", "", 200, `system:anonymous [system:unauthenticated] authorization=""`},
		{"public path, other scheme", "/version", "Basic YWRtaW46YWRtaW4=", 200, `system:anonymous [system:unauthenticated] authorization=""`},
		{"public path, valid token", "/readyz", "Bearer " + admin, 200, `kubernetes-admin [system:masters system:authenticated] authorization=""`},
		{"public path, wrong token", "/livez", "Bearer nope", 401, ""},
		{"public match is exact", "/healthz/etcd", "", 401, ""},
		{"public prefix pattern", "/debug/public/x", "", 200, `system:anonymous [system:unauthenticated] authorization=""`},
		{"prefix pattern covers only its prefix", "/debug/private", "", 401, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "https://127.0.0.1"+tt.path, nil)
			if tt.authorization != "" {
				req.Header.Set("Authorization", tt.authorization)
			}
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, req)

			if rec.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d; body %s", rec.Code, tt.wantCode, rec.Body)
			}
			if tt.wantCode == 200 {
				if got := rec.Body.String(); got != tt.wantBody {
					t.Errorf("body = %s, want %s", got, tt.wantBody)
				}
				return
			}
			checkUnauthorized(t, rec)
		})
	}
}

// TestMiddlewareDropsAuthorizationAfterCertificate: the Authorization
// header goes after any successful authentication, not only a bearer
// token's (upstream's filters/authentication.go).
func TestMiddlewareDropsAuthorizationAfterCertificate(t *testing.T) {
	ca := newTestCA(t, "cluster-ca")
	handler := Middleware(Chain{X509: &X509Authenticator{Roots: ca.pool()}}, nil)(echoUser)
	r := requestWithCert(ca.issue(t, pkix.Name{CommonName: "alice"}, x509.ExtKeyUsageClientAuth, time.Now().Add(-time.Minute)))
	r.Header.Set("Authorization", "Basic YWRtaW46YWRtaW4=")
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, r)
	if want := `alice [system:authenticated] authorization=""`; rec.Code != http.StatusOK || rec.Body.String() != want {
		t.Errorf("got %d %s, want 200 %s", rec.Code, rec.Body, want)
	}
}

func checkUnauthorized(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if h := rec.Header().Get("WWW-Authenticate"); h != "" {
		t.Errorf("WWW-Authenticate = %q; upstream sends none", h)
	}
	var status api.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, rec.Body)
	}
	if status.Kind != "Status" || status.APIVersion != "v1" || status.Status != "Failure" ||
		status.Reason != "Unauthorized" || status.Code != 401 || status.Message != "Unauthorized" {
		t.Errorf("Status = %+v", status)
	}
	// Upstream's body has an (empty) metadata object; kubectl's decoder
	// does not need it, but byte-for-byte closeness helps lessons.
	if !strings.Contains(rec.Body.String(), `"metadata":{}`) {
		t.Errorf("body lacks an empty metadata object: %s", rec.Body)
	}
}

func TestUnauthorizedClosesHTTP2Connections(t *testing.T) {
	tf := mustEnsureTokens(t, t.TempDir())
	handler := Middleware(tokenChain(tf), nil)(echoUser)
	for _, tt := range []struct {
		protoMajor int
		want       string
	}{{1, ""}, {2, "close"}} {
		req := httptest.NewRequest(http.MethodGet, "/api", nil)
		req.ProtoMajor = tt.protoMajor
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if got := rec.Header().Get("Connection"); got != tt.want {
			t.Errorf("HTTP/%d: Connection = %q, want %q", tt.protoMajor, got, tt.want)
		}
	}
}

func TestUserFromEmptyContext(t *testing.T) {
	if u, ok := UserFrom(httptest.NewRequest(http.MethodGet, "/", nil).Context()); ok {
		t.Errorf("UserFrom on a bare context = %+v, true", u)
	}
}
