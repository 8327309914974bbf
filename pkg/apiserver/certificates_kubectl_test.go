package apiserver_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"

	"kplane/test/framework"
)

// csrManifest is a CertificateSigningRequest for user, as a person would
// write one for `kubectl apply`.
func csrManifest(t *testing.T, name, user string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: user}}, key)
	if err != nil {
		t.Fatal(err)
	}
	request := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
	return `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: ` + name + `
spec:
  request: ` + request + `
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400
  username: someone-else
  usages: [client auth]
`
}

// Real kubectl creates, lists, approves and denies CSRs: the server
// records the requester itself (whatever the manifest says), `kubectl get
// csr` shows upstream's columns, approve goes through /approval, and the
// decision cannot be flipped afterwards.
func TestCSRsWithKubectl(t *testing.T) {
	framework.RequireKubectl(t)
	a := framework.StartAPIServer(t)
	a.MustKubectl(t, "version") // warm discovery
	if r := a.Kubectl(t, csrManifest(t, "alice", "alice"), "apply", "-f", "-"); r.Err != nil {
		t.Fatalf("apply: %v\n%s", r.Err, r.Stderr)
	}
	if r := a.Kubectl(t, csrManifest(t, "bob", "bob"), "create", "-f", "-"); r.Err != nil {
		t.Fatalf("create: %v\n%s", r.Err, r.Stderr)
	}
	got := a.MustKubectl(t, "get", "csr")
	for _, want := range []string{"NAME", "AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION",
		"kubernetes.io/kube-apiserver-client", "kubernetes-admin", "24h", "Pending"} {
		if !strings.Contains(got, want) {
			t.Errorf("kubectl get csr lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "someone-else") {
		t.Errorf("the requester came from the manifest:\n%s", got)
	}
	a.MustKubectl(t, "certificate", "approve", "alice")
	a.MustKubectl(t, "certificate", "deny", "bob")
	got = a.MustKubectl(t, "get", "csr", "alice", "bob", "--no-headers")
	if !strings.Contains(got, "Approved") || !strings.Contains(got, "Denied") {
		t.Errorf("after approve and deny:\n%s", got)
	}
	// kubectl refuses to flip a decision itself; the server refuses too.
	resp := a.Do(t, http.MethodPatch, "/apis/certificates.k8s.io/v1/certificatesigningrequests/bob/approval",
		[]byte(`{"status":{"conditions":[{"type":"Approved","status":"True","reason":"Flip"}]}}`),
		"Content-Type", "application/merge-patch+json")
	if resp.Code != http.StatusUnprocessableEntity || !strings.Contains(string(resp.Body), "mutually exclusive") &&
		!strings.Contains(string(resp.Body), "may not remove") {
		t.Errorf("flip bob to Approved: %d %s", resp.Code, resp.Body)
	}
	// A certificate cannot be put on a request that is not approved.
	resp = a.Do(t, http.MethodPatch, "/apis/certificates.k8s.io/v1/certificatesigningrequests/bob/status",
		[]byte(`{"status":{"certificate":"`+base64.StdEncoding.EncodeToString([]byte("x"))+`"}}`),
		"Content-Type", "application/merge-patch+json")
	if resp.Code != http.StatusUnprocessableEntity {
		t.Errorf("certificate on a denied request: %d %s", resp.Code, resp.Body)
	}
	// A bad request body is refused with a Status, not stored.
	resp = a.Do(t, http.MethodPost, "/apis/certificates.k8s.io/v1/certificatesigningrequests",
		[]byte(`{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"junk"},"spec":{"request":"bm90IHBlbQ==","signerName":"x/y"}}`))
	if resp.Code != http.StatusUnprocessableEntity || !strings.Contains(string(resp.Body), "CERTIFICATE REQUEST") {
		t.Errorf("junk request: %d %s", resp.Code, resp.Body)
	}
}
