package serviceaccount

import (
	"crypto/rsa"
	"encoding/json"
	"fmt"

	"github.com/go-jose/go-jose/v4"
)

// Paths of the OIDC discovery documents the apiserver serves, so that
// systems outside the cluster (a cloud's workload identity federation,
// Vault) can verify its ServiceAccount tokens without asking it.
const (
	OpenIDConfigurationPath = "/.well-known/openid-configuration"
	JWKSPath                = "/openid/v1/jwks"
)

// OpenIDConfiguration is the discovery document: the issuer, where its keys
// are, and the little of OIDC that the tokens use. Upstream's fields and
// values (staging/src/k8s.io/.../serviceaccount/openidmetadata.go).
type OpenIDConfiguration struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
}

// NewOpenIDConfiguration describes issuer, whose keys are at jwksURI.
func NewOpenIDConfiguration(issuer, jwksURI string) OpenIDConfiguration {
	return OpenIDConfiguration{
		Issuer:        issuer,
		JWKSURI:       jwksURI,
		ResponseTypes: []string{"id_token"},
		SubjectTypes:  []string{"public"},
		SigningAlgs:   []string{string(jose.RS256)},
	}
}

// JWKS encodes the verification keys as a JSON Web Key Set, each key with
// the same kid (KeyID) the tokens it signed carry, use "sig" and alg RS256.
func JWKS(keys []*rsa.PublicKey) ([]byte, error) {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{}}
	for _, key := range keys {
		kid, err := KeyID(key)
		if err != nil {
			return nil, err
		}
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: key, KeyID: kid, Algorithm: string(jose.RS256), Use: "sig"})
	}
	data, err := json.Marshal(set)
	if err != nil {
		return nil, fmt.Errorf("encode JWKS: %w", err)
	}
	return data, nil
}
