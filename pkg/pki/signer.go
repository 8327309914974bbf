package pki

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"time"
)

// Signer issues certificates for CertificateSigningRequests with the
// cluster CA, as kube-controller-manager's csrsigning controller does with
// --cluster-signing-cert-file and --cluster-signing-key-file. Unlike the
// certificates Ensure makes, the key is the requester's: only the public
// key in the request is certified.
type Signer struct {
	ca *keyPair
}

// LoadSigner reads the CA certificate and key from PEM files.
func LoadSigner(certFile, keyFile string) (*Signer, error) {
	ca, err := loadCA(certFile, keyFile, time.Now())
	if err != nil {
		return nil, fmt.Errorf("load cluster signing CA: %w", err)
	}
	return &Signer{ca: ca}, nil
}

// SignRequest certifies req's public key and subject for extUsages and
// keyUsage, valid from now (backdated by the usual clock skew) for
// validity, but never past the CA's own expiry, as upstream's signer
// caps it. The result is the PEM certificate.
func (s *Signer) SignRequest(req *x509.CertificateRequest, extUsages []x509.ExtKeyUsage, keyUsage x509.KeyUsage,
	validity time.Duration, now time.Time) ([]byte, error) {
	if err := req.CheckSignature(); err != nil {
		return nil, fmt.Errorf("certificate request signature: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	notAfter := now.Add(validity)
	if notAfter.After(s.ca.cert.NotAfter) {
		notAfter = s.ca.cert.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               req.Subject,
		DNSNames:              req.DNSNames,
		IPAddresses:           req.IPAddresses,
		EmailAddresses:        req.EmailAddresses,
		URIs:                  req.URIs,
		NotBefore:             now.Add(-clockSkew).UTC(),
		NotAfter:              notAfter.UTC(),
		KeyUsage:              keyUsage,
		ExtKeyUsage:           extUsages,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, s.ca.cert, req.PublicKey, s.ca.key)
	if err != nil {
		return nil, fmt.Errorf("sign certificate for %s: %w", req.Subject.CommonName, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}
