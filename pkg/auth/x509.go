package auth

import (
	"crypto/x509"
	"fmt"
	"net/http"
	"time"
)

// X509Authenticator authenticates a request by the client certificate it
// presented during the TLS handshake, the way kube-apiserver's
// --client-ca-file does (upstream:
// staging/src/k8s.io/apiserver/pkg/authentication/request/x509/x509.go).
//
// The certificate must chain to one of Roots and be usable for client
// authentication. Its subject names the user: the Common Name (CN) is the
// user name and each Organization (O) is a group, so `CN=alice,O=dev`
// is user alice in group dev. Nothing else is consulted: the CA vouches for
// the subject, and a certificate stays valid until it expires (Kubernetes
// has no revocation list; removing a user's rights means removing their
// bindings).
type X509Authenticator struct {
	// Roots are the CAs whose certificates are trusted: the cluster CA.
	Roots *x509.CertPool
	// Now is the clock used to check validity; nil means time.Now.
	Now func() time.Time
}

// AuthenticateRequest reports the user named by r's client certificate.
// ok is false with a nil error when r carries no certificate (or one with
// an empty CN, which upstream also ignores), so the next authenticator may
// try; a certificate that does not verify is an error, which ends in 401.
//
// The apiserver's TLS listener only requests a certificate
// (tls.RequestClientCert) and leaves verification to this method: a
// certificate from another CA then gets a Kubernetes 401 Status instead of
// a failed handshake, as upstream answers.
func (a *X509Authenticator) AuthenticateRequest(r *http.Request) (User, bool, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return User{}, false, nil
	}
	leaf := r.TLS.PeerCertificates[0]
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	intermediates := x509.NewCertPool()
	for _, c := range r.TLS.PeerCertificates[1:] {
		intermediates.AddCert(c)
	}
	_, err := leaf.Verify(x509.VerifyOptions{
		Roots:         a.Roots,
		Intermediates: intermediates,
		CurrentTime:   now(),
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return User{}, false, fmt.Errorf("verify client certificate %q: %w", leaf.Subject, err)
	}
	if leaf.Subject.CommonName == "" {
		return User{}, false, nil
	}
	return CertificateUser(leaf), true, nil
}

// CertificateUser is the user a client certificate names: CN as the user
// name, each O as a group.
func CertificateUser(cert *x509.Certificate) User {
	return User{Name: cert.Subject.CommonName, Groups: append([]string(nil), cert.Subject.Organization...)}
}
