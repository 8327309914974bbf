package bootstraptoken

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"strings"
)

// pinPrefix is the only hash format kubeadm's --discovery-token-ca-cert-hash
// accepts.
const pinPrefix = "sha256:"

// CAHash is the pin of a CA certificate in kubeadm's format: "sha256:" and
// the hex SHA-256 of its DER SubjectPublicKeyInfo. Pinning the public key
// rather than the certificate means a re-issued CA with the same key still
// matches.
func CAHash(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return pinPrefix + hex.EncodeToString(sum[:])
}

// ParsePin checks that pin has kubeadm's shape, "sha256:" and 64 hex
// digits, and returns it lower-cased.
func ParsePin(pin string) (string, error) {
	hexPart, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(pin)), pinPrefix)
	if !ok {
		return "", fmt.Errorf("unsupported CA pin %q: the format is sha256:<hex of the CA's SubjectPublicKeyInfo>", pin)
	}
	if b, err := hex.DecodeString(hexPart); err != nil || len(b) != sha256.Size {
		return "", fmt.Errorf("CA pin %q: want 64 hex digits after sha256:", pin)
	}
	return pinPrefix + hexPart, nil
}

// VerifyPin checks cert against any of pins (already ParsePin'd); the
// error names the hash the certificate actually has, so a user can compare
// it with what they were given.
func VerifyPin(cert *x509.Certificate, pins []string) error {
	got := CAHash(cert)
	for _, p := range pins {
		if p == got {
			return nil
		}
	}
	return fmt.Errorf("the cluster CA's public key hash is %s, which matches none of the --discovery-token-ca-cert-hash values given: refusing to trust this server", got)
}
