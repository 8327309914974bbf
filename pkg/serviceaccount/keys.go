package serviceaccount

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Default key file names in the PKI directory, as kubeadm names them.
const (
	PrivateKeyFile = "sa.key"
	PublicKeyFile  = "sa.pub"
)

// keyBits is the size of a new signing key: kubeadm makes 2048-bit RSA
// keys too.
const keyBits = 2048

// EnsureSigningKey loads the RSA signing key at privatePath, or creates one
// (and writes its public half to publicPath) when the file does not exist
// yet, so that the first start of a cluster makes the key and every later
// start reuses it: tokens issued before a restart stay valid after it.
func EnsureSigningKey(privatePath, publicPath string) (*rsa.PrivateKey, error) {
	if _, err := os.Stat(privatePath); err == nil {
		key, err := LoadPrivateKey(privatePath)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(publicPath); errors.Is(err, os.ErrNotExist) {
			return key, writePublicKey(publicPath, &key.PublicKey)
		}
		return key, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read service account key %s: %w", privatePath, err)
	}
	key, err := GenerateSigningKey()
	if err != nil {
		return nil, err
	}
	return key, WriteSigningKey(privatePath, publicPath, key)
}

// GenerateSigningKey makes a new RSA signing key.
func GenerateSigningKey() (*rsa.PrivateKey, error) {
	key, err := rsa.GenerateKey(rand.Reader, keyBits)
	if err != nil {
		return nil, fmt.Errorf("generate service account key: %w", err)
	}
	return key, nil
}

// WriteSigningKey writes key to privatePath (PKCS#8 PEM, readable by its
// owner only) and its public half to publicPath.
func WriteSigningKey(privatePath, publicPath string, key *rsa.PrivateKey) error {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encode service account key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(privatePath), 0o700); err != nil {
		return fmt.Errorf("create key directory: %w", err)
	}
	if err := os.WriteFile(privatePath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("write service account key: %w", err)
	}
	return writePublicKey(publicPath, &key.PublicKey)
}

func writePublicKey(path string, pub *rsa.PublicKey) error {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return fmt.Errorf("encode service account public key: %w", err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644); err != nil {
		return fmt.Errorf("write service account public key: %w", err)
	}
	return nil
}

// LoadPrivateKey reads an RSA private key in PEM (PKCS#8 "PRIVATE KEY" or
// PKCS#1 "RSA PRIVATE KEY").
func LoadPrivateKey(path string) (*rsa.PrivateKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read service account key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("service account key %s: no PEM data", path)
	}
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse service account key %s: %w", path, err)
		}
		return key, nil
	case "PRIVATE KEY":
		parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse service account key %s: %w", path, err)
		}
		key, ok := parsed.(*rsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("service account key %s: not an RSA key", path)
		}
		return key, nil
	}
	return nil, fmt.Errorf("service account key %s: unexpected PEM block %q", path, block.Type)
}

// LoadPublicKeys reads every RSA public key in a PEM file: "PUBLIC KEY"
// blocks, or the public half of private keys (upstream's
// --service-account-key-file accepts both, and several keys, so that
// tokens signed by an old key keep working during a rotation).
func LoadPublicKeys(path string) ([]*rsa.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read service account public key: %w", err)
	}
	var keys []*rsa.PublicKey
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		var parsed any
		switch block.Type {
		case "PUBLIC KEY":
			parsed, err = x509.ParsePKIXPublicKey(block.Bytes)
		case "RSA PUBLIC KEY":
			parsed, err = x509.ParsePKCS1PublicKey(block.Bytes)
		case "RSA PRIVATE KEY":
			var key *rsa.PrivateKey
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
			if err == nil {
				parsed = &key.PublicKey
			}
		case "PRIVATE KEY":
			parsed, err = x509.ParsePKCS8PrivateKey(block.Bytes)
			if key, ok := parsed.(*rsa.PrivateKey); ok {
				parsed = &key.PublicKey
			}
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("parse service account key in %s: %w", path, err)
		}
		pub, ok := parsed.(*rsa.PublicKey)
		if !ok {
			return nil, fmt.Errorf("service account key in %s: not an RSA key", path)
		}
		keys = append(keys, pub)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("service account key file %s: no RSA public key", path)
	}
	return keys, nil
}

// KeyID is the "kid" a key's tokens carry in their header and its entry in
// the JWKS document carries: upstream derives it from the key itself (the
// SHA-256 of its DER-encoded PKIX form, base64url without padding), so
// every apiserver sharing a key names it the same without configuration.
func KeyID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("encode public key for its key id: %w", err)
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}
