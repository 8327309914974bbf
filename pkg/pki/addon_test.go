package pki

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"slices"
	"testing"
)

func TestEnsureAddonCertificate(t *testing.T) {
	dir := t.TempDir()
	b := mustEnsure(t, dir, nil)
	serving := AddonCertificate{BaseName: "metrics-server", CommonName: "metrics-server",
		Hosts: []string{"metrics-server.kube-system.svc", "127.0.0.1"}}
	client := AddonCertificate{BaseName: "metrics-server-kubelet-client", CommonName: "system:serviceaccount:kube-system:metrics-server",
		Organizations: []string{"system:serviceaccounts"}}

	for _, tc := range []struct {
		want  AddonCertificate
		usage x509.ExtKeyUsage
		host  string
	}{{serving, x509.ExtKeyUsageServerAuth, "metrics-server.kube-system.svc"}, {client, x509.ExtKeyUsageClientAuth, ""}} {
		files, err := EnsureAddonCertificate(dir, tc.want)
		if err != nil {
			t.Fatalf("%s: %v", tc.want.BaseName, err)
		}
		pair, err := tls.LoadX509KeyPair(files.CertFile, files.KeyFile)
		if err != nil {
			t.Fatal(err)
		}
		leaf, err := x509.ParseCertificate(pair.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		opts := x509.VerifyOptions{Roots: b.CAPool(), KeyUsages: []x509.ExtKeyUsage{tc.usage}, DNSName: tc.host}
		if _, err := leaf.Verify(opts); err != nil {
			t.Errorf("%s does not verify against the CA for %v: %v", tc.want.BaseName, tc.usage, err)
		}
		if leaf.Subject.CommonName != tc.want.CommonName || !slices.Equal(leaf.Subject.Organization, tc.want.Organizations) {
			t.Errorf("%s subject = %s", tc.want.BaseName, leaf.Subject)
		}

		// A second call keeps the files; a changed subject replaces them.
		before := readFile(t, files.CertFile)
		if _, err := EnsureAddonCertificate(dir, tc.want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, readFile(t, files.CertFile)) {
			t.Errorf("%s was reissued although it was still good", tc.want.BaseName)
		}
		changed := tc.want
		changed.CommonName += "-renamed"
		if _, err := EnsureAddonCertificate(dir, changed); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(before, readFile(t, files.CertFile)) {
			t.Errorf("%s was kept although its subject changed", tc.want.BaseName)
		}
	}
}

func TestEnsureAddonCertificateNeedsTheCA(t *testing.T) {
	if _, err := EnsureAddonCertificate(t.TempDir(), AddonCertificate{BaseName: "x", CommonName: "x"}); err == nil {
		t.Fatal("issued a certificate without a cluster CA")
	}
}
