package auth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// tokenChain is a Chain with only the token file, as the apiserver's chain
// is for a request without a client certificate.
// apiAudience stands for the apiserver's own audience in these tests.
const apiAudience = "https://kubernetes.default.svc.cluster.local"

func tokenChain(tf *TokenFile) Chain {
	return Chain{StaticTokens: []TokenAuthenticator{tf}, APIAudiences: []string{apiAudience}}
}

// requestWithCert is a request that presented certs in its TLS handshake.
func requestWithCert(certs ...*x509.Certificate) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "https://127.0.0.1/api", nil)
	r.TLS = &tls.ConnectionState{PeerCertificates: certs}
	return r
}

func TestX509Authenticator(t *testing.T) {
	ca := newTestCA(t, "cluster-ca")
	other := newTestCA(t, "someone-else")
	now := time.Now()
	a := &X509Authenticator{Roots: ca.pool()}
	alice := pkix.Name{CommonName: "alice", Organization: []string{"dev", "ops"}}

	tests := []struct {
		name    string
		req     *http.Request
		want    User
		wantOK  bool
		wantErr string
	}{
		{"CN is the user, O the groups", requestWithCert(ca.issue(t, alice, x509.ExtKeyUsageClientAuth, now.Add(-time.Minute))),
			User{Name: "alice", Groups: []string{"dev", "ops"}}, true, ""},
		{"no TLS: no opinion", httptest.NewRequest(http.MethodGet, "/api", nil), User{}, false, ""},
		{"TLS without a certificate: no opinion", requestWithCert(), User{}, false, ""},
		{"empty CN: no opinion", requestWithCert(ca.issue(t, pkix.Name{Organization: []string{"dev"}}, x509.ExtKeyUsageClientAuth, now.Add(-time.Minute))),
			User{}, false, ""},
		{"another CA", requestWithCert(other.issue(t, alice, x509.ExtKeyUsageClientAuth, now.Add(-time.Minute))),
			User{}, false, "certificate signed by unknown authority"},
		{"a serving certificate is no client certificate", requestWithCert(ca.issue(t, alice, x509.ExtKeyUsageServerAuth, now.Add(-time.Minute))),
			User{}, false, "incompatible key usage"},
		{"expired", requestWithCert(ca.issue(t, alice, x509.ExtKeyUsageClientAuth, now.Add(-2*time.Hour))),
			User{}, false, "expired or is not yet valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user, ok, err := a.AuthenticateRequest(tt.req)
			if ok != tt.wantOK || user.Name != tt.want.Name || !slices.Equal(user.Groups, tt.want.Groups) {
				t.Errorf("got %+v, %v; want %+v, %v", user, ok, tt.want, tt.wantOK)
			}
			if tt.wantErr == "" && err != nil {
				t.Errorf("err = %v, want none", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// audienceTokens is a fake ServiceAccount token authenticator: token
// "sa-token" is valid for audience "vault" and the apiserver's.
type audienceTokens struct{ asked [][]string }

func (f *audienceTokens) AuthenticateToken(_ context.Context, token string, audiences []string) (TokenResult, bool, error) {
	f.asked = append(f.asked, audiences)
	if token != "sa-token" {
		return TokenResult{}, false, errors.New("token is not a JWT")
	}
	granted := intersect(audiences, []string{"vault", apiAudience})
	if len(granted) == 0 {
		return TokenResult{}, false, errors.New("token audiences do not match")
	}
	return TokenResult{User: ServiceAccountUser("default", "builder"), Audiences: granted}, true, nil
}

func TestChainAuthenticateRequest(t *testing.T) {
	ca := newTestCA(t, "cluster-ca")
	other := newTestCA(t, "someone-else")
	tf := mustEnsureTokens(t, t.TempDir())
	admin, _ := tf.TokenFor(AdminUserName)
	chain := tokenChain(tf)
	chain.X509 = &X509Authenticator{Roots: ca.pool()}
	chain.AudienceTokens = []TokenAuthenticator{&audienceTokens{}}

	aliceCert := ca.issue(t, pkix.Name{CommonName: "alice", Organization: []string{"dev"}}, x509.ExtKeyUsageClientAuth, time.Now().Add(-time.Minute))
	foreignCert := other.issue(t, pkix.Name{CommonName: "alice"}, x509.ExtKeyUsageClientAuth, time.Now().Add(-time.Minute))

	tests := []struct {
		name       string
		cert       *x509.Certificate
		token      string
		wantUser   string
		wantGroups []string
		wantErr    string // "" and no user: no credentials
	}{
		{"certificate", aliceCert, "", "alice", []string{"dev", AuthenticatedGroup}, ""},
		{"certificate comes before the token", aliceCert, admin, "alice", []string{"dev", AuthenticatedGroup}, ""},
		{"static token", nil, admin, AdminUserName, []string{MastersGroup, AuthenticatedGroup}, ""},
		{"ServiceAccount token after the token file", nil, "sa-token", "system:serviceaccount:default:builder",
			[]string{AllServiceAccountsGroup, "system:serviceaccounts:default", AuthenticatedGroup}, ""},
		{"a bad certificate does not stop a good token", foreignCert, admin, AdminUserName, []string{MastersGroup, AuthenticatedGroup}, ""},
		{"foreign certificate alone", foreignCert, "", "", nil, "certificate signed by unknown authority"},
		{"unknown token: every authenticator's reason", nil, "nope", "", nil, "token is not a JWT"},
		{"nothing", nil, "", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "https://127.0.0.1/api", nil)
			if tt.cert != nil {
				r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{tt.cert}}
			}
			if tt.token != "" {
				r.Header.Set("Authorization", "Bearer "+tt.token)
			}
			user, ok, err := chain.AuthenticateRequest(r)
			if ok != (tt.wantUser != "") || user.Name != tt.wantUser || !slices.Equal(user.Groups, tt.wantGroups) {
				t.Fatalf("got %+v ok=%v err=%v; want %s %v", user, ok, err, tt.wantUser, tt.wantGroups)
			}
			if tt.wantErr == "" && err != nil {
				t.Errorf("err = %v, want none", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestChainTokenAudiences(t *testing.T) {
	tf := mustEnsureTokens(t, t.TempDir())
	admin, _ := tf.TokenFor(AdminUserName)
	sa := &audienceTokens{}
	chain := tokenChain(tf)
	chain.AudienceTokens = []TokenAuthenticator{sa}

	tests := []struct {
		name      string
		token     string
		audiences []string
		wantOK    bool
		wantAuds  []string
		wantErr   string
	}{
		{"static token, no audiences asked: the apiserver's", admin, nil, true, []string{apiAudience}, ""},
		{"static token, the apiserver's audience", admin, []string{apiAudience}, true, []string{apiAudience}, ""},
		{"static token, the apiserver's among others", admin, []string{"vault", apiAudience}, true, []string{apiAudience}, ""},
		{"static token, someone else's audience", admin, []string{"vault"}, false, nil, "token is not a JWT"},
		{"ServiceAccount token for its audience", "sa-token", []string{"vault"}, true, []string{"vault"}, ""},
		{"ServiceAccount token: the authenticator's intersection", "sa-token", []string{"etcd", "vault"}, true, []string{"vault"}, ""},
		{"unknown token", "nope", nil, false, nil, "token is not a JWT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, ok, err := chain.AuthenticateToken(context.Background(), tt.token, tt.audiences)
			if ok != tt.wantOK || !slices.Equal(res.Audiences, tt.wantAuds) {
				t.Fatalf("got %+v ok=%v err=%v; want ok=%v audiences %v", res, ok, err, tt.wantOK, tt.wantAuds)
			}
			if !ok && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	// The ServiceAccount authenticator is asked with the apiserver's
	// audience when the caller names none.
	sa.asked = nil
	chain.AuthenticateToken(context.Background(), "nope", nil)
	if len(sa.asked) != 1 || !slices.Equal(sa.asked[0], []string{apiAudience}) {
		t.Errorf("ServiceAccount authenticator asked for %v, want [[%s]]", sa.asked, apiAudience)
	}
}

func TestChainWithoutAuthenticatorsRefusesTokens(t *testing.T) {
	_, ok, err := Chain{APIAudiences: []string{apiAudience}}.AuthenticateToken(context.Background(), "x", nil)
	if ok || !errors.Is(err, ErrInvalidBearerToken) || err.Error() != "invalid bearer token" {
		t.Errorf("ok=%v err=%v, want invalid bearer token", ok, err)
	}
}

func TestMiddlewareRefusesForeignCertificateEvenOnPublicPaths(t *testing.T) {
	other := newTestCA(t, "someone-else")
	chain := Chain{X509: &X509Authenticator{Roots: newTestCA(t, "cluster-ca").pool()}}
	handler := Middleware(chain, DefaultPublicPaths)(echoUser)
	r := requestWithCert(other.issue(t, pkix.Name{CommonName: "mallory"}, x509.ExtKeyUsageClientAuth, time.Now().Add(-time.Minute)))
	r.URL.Path = "/healthz"
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, r)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("code = %d, want 401; body %s", rec.Code, rec.Body)
	}
	checkUnauthorized(t, rec)
}
