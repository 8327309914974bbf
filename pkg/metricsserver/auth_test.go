package metricsserver

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

func TestRequestUser(t *testing.T) {
	verified := func(cn string, orgs ...string) *tls.ConnectionState {
		cert := &x509.Certificate{Subject: pkix.Name{CommonName: cn, Organization: orgs}}
		return &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}, VerifiedChains: [][]*x509.Certificate{{cert}}}
	}
	tests := []struct {
		name       string
		tls        *tls.ConnectionState
		headers    map[string][]string
		wantUser   string
		wantGroups []string
	}{
		{"no TLS", nil, nil, "", nil},
		{"no certificate", &tls.ConnectionState{}, map[string][]string{"X-Remote-User": {"mallory"}}, "", nil},
		{"the aggregator for a user", verified("kube-apiserver-kubelet-client", "kubeadm:cluster-admins"),
			map[string][]string{"X-Remote-User": {"jane"}, "X-Remote-Group": {"dev", "system:authenticated"}}, "jane", []string{"dev", "system:authenticated"}},
		{"a client as itself", verified("system:kube-controller-manager"), nil, "system:kube-controller-manager", nil},
	}
	for _, tc := range tests {
		r := httptest.NewRequest(http.MethodGet, "/apis", nil)
		r.TLS = tc.tls
		for k, vs := range tc.headers {
			for _, v := range vs {
				r.Header.Add(k, v)
			}
		}
		u, ok := requestUser(r)
		if ok != (tc.wantUser != "") || u.Name != tc.wantUser || !slices.Equal(u.Groups, tc.wantGroups) {
			t.Errorf("%s: %+v %v, want %q %v", tc.name, u, ok, tc.wantUser, tc.wantGroups)
		}
	}
}
