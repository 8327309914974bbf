package csrsigning

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/clock"
	"kplane/pkg/pki"
)

// testController is a Controller that can issue, with a fresh CA.
func testController(t *testing.T) *Controller {
	t.Helper()
	dir := t.TempDir()
	if _, err := pki.Ensure(dir, nil); err != nil {
		t.Fatal(err)
	}
	signer, err := pki.LoadSigner(filepath.Join(dir, pki.CACertFileName), filepath.Join(dir, pki.CAKeyFileName))
	if err != nil {
		t.Fatal(err)
	}
	return &Controller{signer: signer, clock: clock.Real{}, duration: time.Hour}
}

func approvedCSR(t *testing.T, signer string, subject pkix.Name) *api.CertificateSigningRequest {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: subject}, key)
	if err != nil {
		t.Fatal(err)
	}
	return &api.CertificateSigningRequest{Spec: api.CertificateSigningRequestSpec{
		Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
		SignerName: signer,
		Usages:     []api.KeyUsage{api.UsageDigitalSignature, api.UsageClientAuth},
	}}
}

// The signer issues apiserver client certificates but never one in
// system:masters, even if such a request got past the apiserver (which
// refuses it on create): it would be an admin credential RBAC cannot revoke.
func TestIssueRefusesSystemMasters(t *testing.T) {
	c := testController(t)
	if certPEM, failure := c.issue(approvedCSR(t, api.KubeAPIServerClientSignerName, pkix.Name{CommonName: "alice", Organization: []string{"dev"}})); failure != "" || len(certPEM) == 0 {
		t.Fatalf("alice in dev: failure %q", failure)
	}
	certPEM, failure := c.issue(approvedCSR(t, api.KubeAPIServerClientSignerName, pkix.Name{CommonName: "eve", Organization: []string{"dev", "system:masters"}}))
	if len(certPEM) != 0 || !strings.Contains(failure, "system:masters group is not allowed") {
		t.Errorf("eve in system:masters: cert %d bytes, failure %q", len(certPEM), failure)
	}
}
