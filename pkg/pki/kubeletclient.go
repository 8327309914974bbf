package pki

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"time"
)

// The apiserver's client identity towards kubelets. kubeadm issues the same
// certificate (apiserver-kubelet-client.crt) so that the apiserver can
// authenticate itself when it calls a kubelet for `kubectl logs`, `exec` or
// `port-forward`: the kubelet trusts any client certificate signed by the
// cluster CA and learns from the subject who is calling.
const (
	// KubeletClientCommonName is the user name the certificate carries.
	KubeletClientCommonName = "kube-apiserver-kubelet-client"
	// KubeletClientOrganization is the group it carries. kubeadm used
	// system:masters until v1.29 and kubeadm:cluster-admins since, so that
	// this certificate is no longer an irrevocable superuser; kplane follows
	// the current layout.
	KubeletClientOrganization = "kubeadm:cluster-admins"
)

// newKubeletClient creates the apiserver's kubelet client certificate,
// signed by ca and usable only for TLS client authentication.
func newKubeletClient(ca *keyPair, now time.Time) (*keyPair, error) {
	notAfter := now.Add(servingValidity)
	if notAfter.After(ca.cert.NotAfter) {
		notAfter = ca.cert.NotAfter
	}
	tmpl := &x509.Certificate{
		Subject: pkix.Name{
			CommonName:   KubeletClientCommonName,
			Organization: []string{KubeletClientOrganization},
		},
		NotBefore:   now.Add(-clockSkew).UTC(),
		NotAfter:    notAfter.UTC(),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	return sign(tmpl, ca)
}

// loadKubeletClient reads the kubelet client certificate and says why it
// cannot be used, if it cannot: not issued by ca for client authentication,
// a different subject, or about to expire.
func loadKubeletClient(certFile, keyFile string, ca *keyPair, now time.Time) (*keyPair, error) {
	client, err := loadSignedBy(certFile, keyFile, ca, x509.ExtKeyUsageClientAuth, now)
	if err != nil {
		return nil, err
	}
	if cn := client.cert.Subject.CommonName; cn != KubeletClientCommonName {
		return nil, fmt.Errorf("%s is for %q, want %q", certFile, cn, KubeletClientCommonName)
	}
	if err := checkLifetime(client.cert, now); err != nil {
		return nil, fmt.Errorf("%s: %w", certFile, err)
	}
	return client, nil
}
