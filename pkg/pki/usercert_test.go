package pki

import (
	"crypto/tls"
	"crypto/x509"
	"slices"
	"testing"
)

func TestIssueUserCertificate(t *testing.T) {
	dir := t.TempDir()
	b, err := Ensure(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	uc, err := IssueUserCertificate(dir, "alice", []string{"dev", "ops"})
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(uc.CertPEM, uc.KeyPEM)
	if err != nil {
		t.Fatalf("certificate and key do not belong together: %v", err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if cert.Subject.CommonName != "alice" || !slices.Equal(cert.Subject.Organization, []string{"dev", "ops"}) {
		t.Errorf("subject = %s, want CN=alice O=dev,ops", cert.Subject)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: b.CAPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("does not verify as a client certificate of the cluster CA: %v", err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: b.CAPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err == nil {
		t.Errorf("a user certificate also serves TLS; want client authentication only")
	}

	if _, err := IssueUserCertificate(t.TempDir(), "bob", nil); err == nil {
		t.Errorf("issuing without a CA succeeded")
	}
	if _, err := IssueUserCertificate(dir, "", nil); err == nil {
		t.Errorf("issuing for an empty name succeeded")
	}
}
