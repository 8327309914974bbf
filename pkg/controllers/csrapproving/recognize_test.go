package csrapproving

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"

	"kplane/pkg/api"
)

func request(t *testing.T, tmpl *x509.CertificateRequest) []byte {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, err := x509.CreateCertificateRequest(rand.Reader, tmpl, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func TestIsNodeClientCertAndSubresource(t *testing.T) {
	node := pkix.Name{CommonName: "system:node:w1", Organization: []string{"system:nodes"}}
	clientUsages := []api.KeyUsage{api.UsageDigitalSignature, api.UsageClientAuth}
	for _, tt := range []struct {
		name        string
		tmpl        x509.CertificateRequest
		signer      string
		usages      []api.KeyUsage
		username    string
		ok          bool
		subresource string
	}{
		{"bootstrap", x509.CertificateRequest{Subject: node}, api.KubeAPIServerClientKubeletSignerName, clientUsages, "system:bootstrap:abcdef", true, "nodeclient"},
		{"renewal", x509.CertificateRequest{Subject: node}, api.KubeAPIServerClientKubeletSignerName, clientUsages, "system:node:w1", true, "selfnodeclient"},
		{"other signer", x509.CertificateRequest{Subject: node}, api.KubeAPIServerClientSignerName, clientUsages, "", false, ""},
		{"extra org", x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:w1", Organization: []string{"system:nodes", "system:masters"}}},
			api.KubeAPIServerClientKubeletSignerName, clientUsages, "", false, ""},
		{"not a node", x509.CertificateRequest{Subject: pkix.Name{CommonName: "admin", Organization: []string{"system:nodes"}}},
			api.KubeAPIServerClientKubeletSignerName, clientUsages, "", false, ""},
		{"with a SAN", x509.CertificateRequest{Subject: node, DNSNames: []string{"w1"}}, api.KubeAPIServerClientKubeletSignerName, clientUsages, "", false, ""},
		{"server usage", x509.CertificateRequest{Subject: node}, api.KubeAPIServerClientKubeletSignerName,
			[]api.KeyUsage{api.UsageClientAuth, api.UsageServerAuth}, "", false, ""},
		{"no client auth", x509.CertificateRequest{Subject: node}, api.KubeAPIServerClientKubeletSignerName,
			[]api.KeyUsage{api.UsageDigitalSignature}, "", false, ""},
	} {
		csr := &api.CertificateSigningRequest{Spec: api.CertificateSigningRequestSpec{
			Request: request(t, &tt.tmpl), SignerName: tt.signer, Usages: tt.usages, Username: tt.username}}
		req, err := api.ParseCSR(csr.Spec.Request)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		ok, reason := IsNodeClientCert(csr, req)
		if ok != tt.ok {
			t.Errorf("%s: IsNodeClientCert = %v (%s), want %v", tt.name, ok, reason, tt.ok)
		}
		if ok && subresourceFor(csr, req) != tt.subresource {
			t.Errorf("%s: subresource %s, want %s", tt.name, subresourceFor(csr, req), tt.subresource)
		}
	}
}
