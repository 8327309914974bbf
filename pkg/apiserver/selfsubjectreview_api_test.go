package apiserver_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/pki"
	"kplane/test/framework"
)

const selfSubjectReviewBody = `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`

// whoami decodes a SelfSubjectReview answer, failing unless it is a 201.
func whoami(t *testing.T, r framework.Response) api.SelfSubjectReview {
	t.Helper()
	if r.Code != http.StatusCreated {
		t.Fatalf("SelfSubjectReview: %d %s, want 201", r.Code, r.Body)
	}
	var review api.SelfSubjectReview
	if err := json.Unmarshal(r.Body, &review); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
	return review
}

// TestSelfSubjectReview: `kubectl auth whoami`'s request answers who the
// caller is — by token, by impersonation — in every version kubectl asks;
// other versions are 404, other kinds 400, and anonymous callers 401.
func TestSelfSubjectReview(t *testing.T) {
	a := framework.StartAPIServer(t)
	for _, version := range []string{"v1", "v1beta1", "v1alpha1"} {
		got := whoami(t, a.Do(t, http.MethodPost, "/apis/authentication.k8s.io/"+version+"/selfsubjectreviews", []byte(selfSubjectReviewBody)))
		want := api.UserInfo{Username: auth.AdminUserName, Groups: []string{auth.MastersGroup, auth.AuthenticatedGroup}}
		if got.Kind != "SelfSubjectReview" || got.APIVersion != "authentication.k8s.io/"+version ||
			got.Status.UserInfo.Username != want.Username || !slices.Equal(got.Status.UserInfo.Groups, want.Groups) {
			t.Errorf("%s: %+v, want %+v", version, got, want)
		}
	}

	aliceToken := a.TokenFor(t, auth.User{Name: "alice", Groups: []string{"dev"}})
	got := whoami(t, a.DoWithToken(t, aliceToken, http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews", []byte(selfSubjectReviewBody)))
	if got.Status.UserInfo.Username != "alice" || !slices.Equal(got.Status.UserInfo.Groups, []string{"dev", auth.AuthenticatedGroup}) {
		t.Errorf("alice's token: %+v", got.Status.UserInfo)
	}

	got = whoami(t, a.Do(t, http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews", []byte(selfSubjectReviewBody),
		"Impersonate-User", "system:serviceaccount:ci:builder", "Impersonate-Uid", "42", "Impersonate-Extra-Example.com%2fTeam", "blue"))
	wantSA := api.UserInfo{Username: "system:serviceaccount:ci:builder", UID: "42",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ci", auth.AuthenticatedGroup},
		Extra:  map[string][]string{"example.com/team": {"blue"}}}
	if u := got.Status.UserInfo; u.Username != wantSA.Username || u.UID != wantSA.UID || !slices.Equal(u.Groups, wantSA.Groups) ||
		len(u.Extra) != 1 || !slices.Equal(u.Extra["example.com/team"], []string{"blue"}) {
		t.Errorf("impersonating a ServiceAccount: %+v, want %+v", u, wantSA)
	}

	for _, tt := range []struct {
		path, body string
		code       int
	}{
		{"/apis/authentication.k8s.io/v2/selfsubjectreviews", selfSubjectReviewBody, 404},
		{"/apis/authentication.k8s.io/v1/selfsubjectreviews", `{"kind":"Pod"}`, 400},
		{"/apis/authentication.k8s.io/v1/selfsubjectreviews", `{`, 400},
	} {
		if r := a.Do(t, http.MethodPost, tt.path, []byte(tt.body)); r.Code != tt.code {
			t.Errorf("POST %s %s: %d %s, want %d", tt.path, tt.body, r.Code, r.Body, tt.code)
		}
	}
	if r := a.DoWithToken(t, "", http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews", []byte(selfSubjectReviewBody)); r.Code != 401 {
		t.Errorf("anonymous SelfSubjectReview: %d %s, want 401", r.Code, r.Body)
	}
	if r := a.Do(t, http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews", []byte(selfSubjectReviewBody),
		"Impersonate-Group", "dev"); r.Code != 400 {
		t.Errorf("impersonating a group without a user: %d %s, want 400", r.Code, r.Body)
	}
}

// TestClientCertificateAuthentication: a certificate the cluster CA signed
// authenticates as CN in groups O; one from another CA is a 401 (not a
// failed handshake), even on /healthz; without a certificate, tokens work
// as before.
func TestClientCertificateAuthentication(t *testing.T) {
	a := framework.StartAPIServer(t)
	carol, err := pki.IssueUserCertificate(filepath.Join(a.Dir, "pki"), "carol", []string{"qa", "ops"})
	if err != nil {
		t.Fatal(err)
	}
	// A second cluster's CA plays the stranger.
	otherDir := t.TempDir()
	if _, err := pki.Ensure(otherDir, nil); err != nil {
		t.Fatal(err)
	}
	mallory, err := pki.IssueUserCertificate(otherDir, "carol", []string{"system:masters"})
	if err != nil {
		t.Fatal(err)
	}

	got := whoami(t, postWithCertificate(t, a, carol, "/apis/authentication.k8s.io/v1/selfsubjectreviews", selfSubjectReviewBody))
	if u := got.Status.UserInfo; u.Username != "carol" || !slices.Equal(u.Groups, []string{"qa", "ops", auth.AuthenticatedGroup}) {
		t.Errorf("carol's certificate: %+v, want carol in [qa ops system:authenticated]", u)
	}
	for _, path := range []string{"/apis/authentication.k8s.io/v1/selfsubjectreviews", "/healthz"} {
		r := postWithCertificate(t, a, mallory, path, selfSubjectReviewBody)
		var status api.Status
		_ = json.Unmarshal(r.Body, &status)
		if r.Code != 401 || status.Reason != "Unauthorized" {
			t.Errorf("a certificate from another CA at %s: %d %s, want a 401 Unauthorized Status", path, r.Code, r.Body)
		}
	}

	// The handshake's certificate request names the cluster CA as the
	// one whose certificates are acceptable.
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(a.CACertPEM())
	var acceptable [][]byte
	conn, err := tls.Dial("tcp", strings.TrimPrefix(a.URL(), "https://"), &tls.Config{RootCAs: roots,
		GetClientCertificate: func(req *tls.CertificateRequestInfo) (*tls.Certificate, error) {
			acceptable = req.AcceptableCAs
			return &tls.Certificate{}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	block, _ := pem.Decode(a.CACertPEM())
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if len(acceptable) != 1 || !bytes.Equal(acceptable[0], ca.RawSubject) {
		t.Errorf("certificate request names CAs %q, want the cluster CA's %q", acceptable, ca.RawSubject)
	}
}

// postWithCertificate POSTs body to path presenting cert (GET for /healthz).
func postWithCertificate(t *testing.T, a *framework.APIServer, cert pki.UserCertificate, path, body string) framework.Response {
	t.Helper()
	pair, err := tls.X509KeyPair(cert.CertPEM, cert.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(a.CACertPEM())
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{pair}}, ForceAttemptHTTP2: true}
	defer transport.CloseIdleConnections()
	method := http.MethodPost
	if path == "/healthz" {
		method = http.MethodGet
	}
	req, err := http.NewRequest(method, a.URL()+path, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		t.Fatalf("%s %s with a client certificate: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return framework.Response{Code: resp.StatusCode, Header: resp.Header, Body: b}
}
