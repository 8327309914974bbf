package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"time"

	"kplane/pkg/fileutil"
)

// keyPair is a certificate with its private key, in parsed and PEM form.
type keyPair struct {
	cert    *x509.Certificate
	certPEM []byte
	key     crypto.Signer
	keyPEM  []byte
}

// clockSkew backdates NotBefore so a certificate made a moment ago is
// already valid on a machine whose clock is slightly behind.
const clockSkew = 5 * time.Minute

// newCA creates a self-signed CA. Its subject is CN=kubernetes, as kubeadm
// names the cluster CA.
func newCA(now time.Time) (*keyPair, error) {
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "kubernetes"},
		NotBefore:             now.Add(-clockSkew).UTC(),
		NotAfter:              now.Add(caValidity).UTC(),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	return sign(tmpl, nil)
}

// newServing creates the apiserver's serving certificate, signed by ca and
// valid for hosts. CN=kube-apiserver follows kubeadm; clients check the SANs,
// not the CN.
func newServing(ca *keyPair, hosts []string, now time.Time) (*keyPair, error) {
	return newAddon(ca, servingCertificate(hosts), now)
}

// servingCertificate is the apiserver's serving certificate for hosts.
func servingCertificate(hosts []string) AddonCertificate {
	return AddonCertificate{CommonName: "kube-apiserver", Hosts: hosts}
}

// sign makes a fresh ECDSA P-256 key and a certificate for it from tmpl,
// signed by issuer (or by the new key itself when issuer is nil).
func sign(tmpl *x509.Certificate, issuer *keyPair) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate key for %s: %w", tmpl.Subject.CommonName, err)
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial

	parent, signer := tmpl, crypto.Signer(key)
	if issuer != nil {
		parent, signer = issuer.cert, issuer.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), signer)
	if err != nil {
		return nil, fmt.Errorf("sign certificate for %s: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse new certificate for %s: %w", tmpl.Subject.CommonName, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode key for %s: %w", tmpl.Subject.CommonName, err)
	}
	return &keyPair{
		cert:    cert,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		key:     key,
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// newSerial draws a certificate serial number. RFC 5280 asks for a
// positive serial of at most 20 octets; 128 random bits keep serials
// unique without any state.
func newSerial() (*big.Int, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("generate serial number: %w", err)
	}
	return serial, nil
}

// readKeyPair loads a certificate and key from PEM files and checks that the
// key belongs to the certificate. Any PEM key encoding crypto/tls accepts
// (PKCS#1, PKCS#8, SEC 1) will do, so hand-made files work too.
func readKeyPair(certFile, keyFile string) (*keyPair, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s and %s: %w", certFile, keyFile, err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", certFile, err)
	}
	signer, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%s: key of type %T cannot sign", keyFile, pair.PrivateKey)
	}
	return &keyPair{cert: cert, certPEM: certPEM, key: signer, keyPEM: keyPEM}, nil
}

// loadCA reads the CA and says why it cannot be used, if it cannot.
func loadCA(certFile, keyFile string, now time.Time) (*keyPair, error) {
	ca, err := readKeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	if !ca.cert.IsCA || ca.cert.KeyUsage&x509.KeyUsageCertSign == 0 {
		return nil, fmt.Errorf("%s is not a CA certificate", certFile)
	}
	if err := checkLifetime(ca.cert, now); err != nil {
		return nil, fmt.Errorf("%s: %w", certFile, err)
	}
	return ca, nil
}

// loadSignedBy reads a key pair and checks that ca issued it for usage.
func loadSignedBy(certFile, keyFile string, ca *keyPair, usage x509.ExtKeyUsage, now time.Time) (*keyPair, error) {
	pair, err := readKeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	opts := x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{usage}}
	if _, err := pair.cert.Verify(opts); err != nil {
		return nil, fmt.Errorf("%s does not verify against the CA: %w", certFile, err)
	}
	return pair, nil
}

// loadServing reads the serving certificate and says why it cannot be used,
// if it cannot: not issued by ca, not CN=kube-apiserver, missing one of
// hosts, or about to expire.
func loadServing(certFile, keyFile string, ca *keyPair, hosts []string, now time.Time) (*keyPair, error) {
	return loadLeaf(certFile, keyFile, servingCertificate(hosts), ca, now)
}

// checkLifetime refuses a certificate that is not yet valid or expires within
// renewBefore.
func checkLifetime(cert *x509.Certificate, now time.Time) error {
	switch {
	case now.Before(cert.NotBefore):
		return fmt.Errorf("not valid before %s", cert.NotBefore.Format(time.RFC3339))
	case now.Add(renewBefore).After(cert.NotAfter):
		return fmt.Errorf("expires %s, within %s", cert.NotAfter.Format(time.RFC3339), renewBefore)
	}
	return nil
}

// tlsCertificate is the pair in the form crypto/tls serves.
func (p *keyPair) tlsCertificate() tls.Certificate {
	return tls.Certificate{
		Certificate: [][]byte{p.cert.Raw},
		PrivateKey:  p.key,
		Leaf:        p.cert,
	}
}

// write stores the key (0600) and then the certificate (0644). Each file is
// replaced atomically; a crash between the two leaves a pair that does not
// match, which the next Ensure notices and regenerates.
func (p *keyPair) write(certFile, keyFile string) error {
	if err := fileutil.WriteAtomic(keyFile, p.keyPEM, 0o600); err != nil {
		return err
	}
	return fileutil.WriteAtomic(certFile, p.certPEM, 0o644)
}
