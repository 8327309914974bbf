package serviceaccount

import (
	"crypto/rsa"
	"fmt"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Issuer signs ServiceAccount tokens with one RSA key (RS256), putting the
// key's id in every token's header so that a verifier holding several keys
// knows which to try (upstream's jwtTokenGenerator).
type Issuer struct {
	issuer string
	signer jose.Signer
}

// NewIssuer returns an Issuer that signs as issuer with key.
func NewIssuer(issuer string, key *rsa.PrivateKey) (*Issuer, error) {
	kid, err := KeyID(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return nil, fmt.Errorf("create token signer: %w", err)
	}
	return &Issuer{issuer: issuer, signer: signer}, nil
}

// Name is the issuer the tokens state ("iss").
func (i *Issuer) Name() string { return i.issuer }

// Issue signs a bound token for spec and returns it in compact form
// (header.payload.signature).
func (i *Issuer) Issue(spec TokenSpec) (string, error) {
	public, private := spec.claims(i.issuer)
	return i.sign(public, private)
}

func (i *Issuer) sign(claims ...any) (string, error) {
	builder := jwt.Signed(i.signer)
	for _, c := range claims {
		builder = builder.Claims(c)
	}
	token, err := builder.Serialize()
	if err != nil {
		return "", fmt.Errorf("sign service account token: %w", err)
	}
	return token, nil
}
