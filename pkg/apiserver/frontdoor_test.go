package apiserver_test

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"kplane/pkg/apiserver"
	"kplane/pkg/kubeconfig"
	"kplane/pkg/pki"
	"kplane/test/framework"
)

func TestValidateFrontDoor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sans    []string
		server  string
		wantErr bool
	}{
		{name: "none"},
		{name: "addresses and names", sans: []string{"127.0.0.1", "127.0.0.3", "::1", "lb.example", "*.apis.example"}, server: "https://127.0.0.1:6443"},
		{name: "empty san", sans: []string{""}, wantErr: true},
		{name: "san with port", sans: []string{"127.0.0.1:6443"}, wantErr: true},
		{name: "san with space", sans: []string{"a b"}, wantErr: true},
		{name: "http server", server: "http://127.0.0.1:6443", wantErr: true},
		{name: "server without host", server: "https://", wantErr: true},
		{name: "server with path", server: "https://127.0.0.1:6443/api", wantErr: true},
	} {
		o := apiserver.DefaultOptions()
		o.TLSSANs, o.KubeconfigServer = tc.sans, tc.server
		if err := o.Validate(); (err != nil) != tc.wantErr {
			t.Errorf("%s: Validate() = %v, want error %v", tc.name, err, tc.wantErr)
		}
	}
}

// TestTLSSANsAndKubeconfigServer starts an apiserver the way ctl up starts
// the first of two behind a balancer and checks that its certificate names
// the second apiserver's and the balancer's addresses, and that the admin
// kubeconfig names the balancer.
func TestTLSSANsAndKubeconfigServer(t *testing.T) {
	dir := t.TempDir()
	const balancer = "https://127.0.0.1:1"
	s := framework.StartAPIServerWith(t, dir, func(o *apiserver.Options) {
		o.TLSSANs = []string{"127.0.0.1", "127.0.0.3", "kplane-lb"}
		o.KubeconfigServer = balancer
	})
	certPEM, err := os.ReadFile(filepath.Join(dir, "pki", pki.ServerCertFileName))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(certPEM)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"127.0.0.1", "127.0.0.3", "kplane-lb"} {
		if err := cert.VerifyHostname(host); err != nil {
			t.Errorf("serving certificate does not name %s: %v", host, err)
		}
	}
	kc, err := kubeconfig.Load(s.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := kc.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	if resolved.Server != balancer {
		t.Errorf("admin kubeconfig names %s, want the balancer %s", resolved.Server, balancer)
	}
}
