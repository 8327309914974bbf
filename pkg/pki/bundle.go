// Package pki gives the apiserver its TLS identity: a cluster certificate
// authority (CA), a serving certificate signed by it, and the client
// certificate the apiserver presents to kubelets, kept in the data dir.
//
// It plays the part kubeadm's "certs" phase plays for a real cluster. At first
// start Ensure creates DIR/pki/ca.{crt,key}, DIR/pki/apiserver.{crt,key} and
// DIR/pki/apiserver-kubelet-client.{crt,key}; afterwards it loads them, and
// replaces only what is missing or no longer good enough (a serving
// certificate that a new host name is not in, or a certificate that expires
// within 30 days). Clients trust the cluster by trusting ca.crt, which
// is why the same bytes end up base64-encoded in every kubeconfig.
package pki

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// File names inside the pki directory. They follow kubeadm's layout
// (/etc/kubernetes/pki/ca.crt, apiserver.crt, …) so a student who runs
// `openssl x509 -text -noout -in DIR/pki/apiserver.crt` sees what they
// would see on a kubeadm node.
const (
	CACertFileName     = "ca.crt"
	CAKeyFileName      = "ca.key"
	ServerCertFileName = "apiserver.crt"
	ServerKeyFileName  = "apiserver.key"

	// The apiserver's client certificate for kubelets (kubeadm's name).
	KubeletClientCertFileName = "apiserver-kubelet-client.crt"
	KubeletClientKeyFileName  = "apiserver-kubelet-client.key"
)

// Validity periods, as kubeadm chooses them: the CA lives ten years, leaf
// certificates one year.
const (
	caValidity      = 10 * 365 * 24 * time.Hour
	servingValidity = 365 * 24 * time.Hour

	// renewBefore is how close to expiry a certificate may get before Ensure
	// replaces it; kubeadm's `certs check-expiration` warns at the same point.
	renewBefore = 30 * 24 * time.Hour
)

// Bundle is the cluster CA, the apiserver's serving certificate and its
// kubelet client certificate, loaded from (and written to) one directory.
type Bundle struct {
	// Dir is the directory holding the six files below.
	Dir string
	// CACertFile, CAKeyFile, ServerCertFile, ServerKeyFile,
	// KubeletClientCertFile and KubeletClientKeyFile are the paths of the
	// PEM files in Dir.
	CACertFile            string
	CAKeyFile             string
	ServerCertFile        string
	ServerKeyFile         string
	KubeletClientCertFile string
	KubeletClientKeyFile  string

	// CACertPEM is the CA certificate in PEM form: what a client needs to
	// trust the server (a kubeconfig's certificate-authority-data).
	CACertPEM []byte
	// CACert is CACertPEM parsed.
	CACert *x509.Certificate
	// ServerCert is the parsed serving (leaf) certificate.
	ServerCert *x509.Certificate
	// KubeletClientCert is the certificate, with its key, that the apiserver
	// presents when it calls a kubelet (pods/log): CN
	// kube-apiserver-kubelet-client, signed by the CA, client auth only.
	// Kubelets accept it because they trust the same CA.
	KubeletClientCert tls.Certificate

	// serving is the serving certificate with its private key, ready for
	// crypto/tls.
	serving tls.Certificate
}

// Ensure returns the CA, serving certificate and kubelet client certificate
// stored in dir, creating or replacing whatever is missing or unusable. The
// serving certificate covers the names and addresses clients use to reach
// the apiserver (see DefaultHosts) plus hosts, which may mix DNS names and IP
// addresses.
//
// A CA is reused when its certificate and key parse, belong together and do
// not expire within 30 days. The serving certificate is reused when, in
// addition, it verifies against that CA, covers every requested host and
// does not expire within 30 days; the kubelet client certificate likewise
// when it verifies against the CA for client authentication, names
// kube-apiserver-kubelet-client and does not expire within 30 days.
// Replacing the CA also replaces both leaf certificates, since the old ones
// no longer chain to it.
func Ensure(dir string, hosts []string) (*Bundle, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create pki dir %s: %w", dir, err)
	}
	b := &Bundle{
		Dir:            dir,
		CACertFile:     filepath.Join(dir, CACertFileName),
		CAKeyFile:      filepath.Join(dir, CAKeyFileName),
		ServerCertFile: filepath.Join(dir, ServerCertFileName),
		ServerKeyFile:  filepath.Join(dir, ServerKeyFileName),

		KubeletClientCertFile: filepath.Join(dir, KubeletClientCertFileName),
		KubeletClientKeyFile:  filepath.Join(dir, KubeletClientKeyFileName),
	}
	now := time.Now()
	sans := servingHosts(hosts)

	ca, err := loadCA(b.CACertFile, b.CAKeyFile, now)
	if err != nil {
		slog.Debug("generating cluster CA", "component", "pki", "dir", dir, "reason", err.Error())
		if ca, err = newCA(now); err != nil {
			return nil, err
		}
		if err := ca.write(b.CACertFile, b.CAKeyFile); err != nil {
			return nil, err
		}
	}

	serving, err := loadServing(b.ServerCertFile, b.ServerKeyFile, ca, sans, now)
	if err != nil {
		slog.Debug("generating apiserver serving certificate", "component", "pki", "dir", dir, "reason", err.Error())
		if serving, err = newServing(ca, sans, now); err != nil {
			return nil, err
		}
		if err := serving.write(b.ServerCertFile, b.ServerKeyFile); err != nil {
			return nil, err
		}
	}

	kubeletClient, err := loadKubeletClient(b.KubeletClientCertFile, b.KubeletClientKeyFile, ca, now)
	if err != nil {
		slog.Debug("generating apiserver kubelet client certificate", "component", "pki", "dir", dir, "reason", err.Error())
		if kubeletClient, err = newKubeletClient(ca, now); err != nil {
			return nil, err
		}
		if err := kubeletClient.write(b.KubeletClientCertFile, b.KubeletClientKeyFile); err != nil {
			return nil, err
		}
	}

	b.CACertPEM = ca.certPEM
	b.CACert = ca.cert
	b.ServerCert = serving.cert
	b.serving = serving.tlsCertificate()
	b.KubeletClientCert = kubeletClient.tlsCertificate()
	return b, nil
}

// ServerTLSConfig returns a TLS configuration for the apiserver's listener:
// TLS 1.2 or newer, offering HTTP/2 before HTTP/1.1 in ALPN as upstream's
// apiserver does (kubectl and client-go speak HTTP/2 when offered). Each call
// returns a new Config the caller may modify.
func (b *Bundle) ServerTLSConfig() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{b.serving},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
	}
}

// CAPool returns a certificate pool holding only the cluster CA: what a
// client puts in tls.Config.RootCAs to trust this apiserver and nothing else.
func (b *Bundle) CAPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(b.CACert)
	return pool
}
