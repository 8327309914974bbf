package bootstraptoken

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
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

// CAHashes are the pins of every CA certificate in caPEM, in order:
// `ctl token create --print-join-command` prints them all, and a joining
// node trusts the bundle when any one matches (kubeadm checks every CA in
// cluster-info).
func CAHashes(caPEM []byte) ([]string, error) {
	var hashes []string
	for rest := caPEM; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse CA certificate: %w", err)
		}
		hashes = append(hashes, CAHash(cert))
	}
	if len(hashes) == 0 {
		return nil, errors.New("no PEM CA certificate")
	}
	return hashes, nil
}

// VerifyPins checks that one of the CA certificates in caPEM matches one
// of pins (already ParsePin'd); the error names the hashes the
// certificates actually have, so a user can compare them with what they
// were given.
func VerifyPins(caPEM []byte, pins []string) error {
	hashes, err := CAHashes(caPEM)
	if err != nil {
		return err
	}
	for _, h := range hashes {
		if slices.Contains(pins, h) {
			return nil
		}
	}
	return fmt.Errorf("the cluster CA's public key hash is %s, which matches none of the --discovery-token-ca-cert-hash values given: refusing to trust this server",
		strings.Join(hashes, ", "))
}
