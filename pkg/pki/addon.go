package pki

// This file issues certificates for the cluster's add-ons, signed by the
// cluster CA that Ensure keeps. An add-on API server such as metrics-server
// needs two: a serving certificate the apiserver's aggregator verifies
// against the CA (the APIService's caBundle), and a client certificate it
// presents to the kubelets it scrapes. kubeadm leaves this to the add-on's
// own manifest (metrics-server usually makes a self-signed serving
// certificate and is trusted with insecureSkipTLSVerify); kplane signs both
// with its CA so that every TLS connection in the cluster is verified.

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"time"
)

// AddonCertificate names a certificate of an add-on: its file pair in the
// pki directory and the subject and names it carries.
type AddonCertificate struct {
	// BaseName is the files' name without extension: BaseName.crt and
	// BaseName.key in the pki directory.
	BaseName string
	// CommonName is the subject CN: the user name a client certificate
	// authenticates as.
	CommonName string
	// Organizations are the subject O: a client certificate's groups.
	Organizations []string
	// Hosts are the DNS names and IP addresses a serving certificate
	// covers; empty makes a client certificate.
	Hosts []string
}

// AddonFiles are the paths of an issued add-on certificate and its key.
type AddonFiles struct {
	CertFile string
	KeyFile  string
}

// EnsureAddonCertificate returns the files of want in dir, signed by the
// cluster CA kept there (ca.crt and ca.key, written by Ensure). It reuses
// the files when they verify against the CA for their usage, carry want's
// subject and hosts, and do not expire within 30 days; otherwise it issues
// new ones. The CA must exist: the apiserver creates it at first start.
func EnsureAddonCertificate(dir string, want AddonCertificate) (AddonFiles, error) {
	files := AddonFiles{
		CertFile: filepath.Join(dir, want.BaseName+".crt"),
		KeyFile:  filepath.Join(dir, want.BaseName+".key"),
	}
	now := time.Now()
	ca, err := loadCA(filepath.Join(dir, CACertFileName), filepath.Join(dir, CAKeyFileName), now)
	if err != nil {
		return AddonFiles{}, fmt.Errorf("certificate %s: the cluster CA: %w", want.BaseName, err)
	}
	reason := checkAddon(files, want, ca, now)
	if reason == nil {
		return files, nil
	}
	slog.Debug("issuing add-on certificate", "component", "pki", "name", want.BaseName, "reason", reason.Error())
	pair, err := newAddon(ca, want, now)
	if err != nil {
		return AddonFiles{}, err
	}
	if err := pair.write(files.CertFile, files.KeyFile); err != nil {
		return AddonFiles{}, fmt.Errorf("certificate %s: %w", want.BaseName, err)
	}
	return files, nil
}

// usage is what the certificate is for: serving when it names hosts.
func (a AddonCertificate) usage() x509.ExtKeyUsage {
	if len(a.Hosts) > 0 {
		return x509.ExtKeyUsageServerAuth
	}
	return x509.ExtKeyUsageClientAuth
}

// newAddon signs a certificate for want with ca.
func newAddon(ca *keyPair, want AddonCertificate, now time.Time) (*keyPair, error) {
	dnsNames, ips := splitHosts(want.Hosts)
	notAfter := now.Add(servingValidity)
	if notAfter.After(ca.cert.NotAfter) {
		notAfter = ca.cert.NotAfter
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: want.CommonName, Organization: want.Organizations},
		NotBefore:   now.Add(-clockSkew).UTC(),
		NotAfter:    notAfter.UTC(),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{want.usage()},
		DNSNames:    dnsNames,
		IPAddresses: ips,
	}
	return sign(tmpl, ca)
}

// checkAddon says why the files cannot be reused for want, if they cannot.
func checkAddon(files AddonFiles, want AddonCertificate, ca *keyPair, now time.Time) error {
	_, err := loadLeaf(files.CertFile, files.KeyFile, want, ca, now)
	return err
}

// loadLeaf reads a certificate issued by newAddon and says why it cannot
// be reused for want, if it cannot: not issued by ca for want's usage, a
// different subject, a host it does not cover, or about to expire.
func loadLeaf(certFile, keyFile string, want AddonCertificate, ca *keyPair, now time.Time) (*keyPair, error) {
	pair, err := loadSignedBy(certFile, keyFile, ca, want.usage(), now)
	if err != nil {
		return nil, err
	}
	subject := pair.cert.Subject
	if subject.CommonName != want.CommonName || !slices.Equal(subject.Organization, want.Organizations) {
		return nil, fmt.Errorf("%s is for %s, want CN=%s O=%v", certFile, subject, want.CommonName, want.Organizations)
	}
	for _, h := range want.Hosts {
		if err := pair.cert.VerifyHostname(h); err != nil {
			return nil, fmt.Errorf("%s does not cover %q", certFile, h)
		}
	}
	if err := checkLifetime(pair.cert, now); err != nil {
		return nil, fmt.Errorf("%s: %w", certFile, err)
	}
	return pair, nil
}
