package bootstraptoken

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ClusterInfo is the ConfigMap kube-public/cluster-info: its KubeconfigKey
// holds a kubeconfig with the cluster's server and CA and no credentials,
// and a key JWSKeyPrefix+<token-id> per signing token holds a detached JWS
// of that kubeconfig keyed by the token.
const (
	ClusterInfoNamespace = "kube-public"
	ClusterInfoName      = "cluster-info"
	KubeconfigKey        = "kubeconfig"
	JWSKeyPrefix         = "jws-kubeconfig-"
)

// jwsHeader is the protected header of the signature: HS256, and the
// token-id as the key id so a reader knows which key was used.
type jwsHeader struct {
	Algorithm string `json:"alg"`
	KeyID     string `json:"kid"`
}

var b64 = base64.RawURLEncoding

// DetachedJWS signs content with token as upstream's bootstrapsigner does
// (k8s.io/cluster-bootstrap/token/jws): a compact JWS, HS256 keyed by the
// whole "<id>.<secret>", with the payload left out ("header..signature"),
// since the reader already has the content from the ConfigMap.
func DetachedJWS(content string, token Token) (string, error) {
	header, err := json.Marshal(jwsHeader{Algorithm: "HS256", KeyID: token.ID})
	if err != nil {
		return "", fmt.Errorf("encode JWS header: %w", err)
	}
	protected := b64.EncodeToString(header)
	return protected + ".." + b64.EncodeToString(sign(protected, content, token)), nil
}

func sign(protected, content string, token Token) []byte {
	mac := hmac.New(sha256.New, []byte(token.String()))
	mac.Write([]byte(protected + "." + b64.EncodeToString([]byte(content))))
	return mac.Sum(nil)
}

// VerifyDetachedJWS checks that jws is content's detached signature with
// token: the header must say HS256 and name the token's id, and the MAC
// must match. An error says which of those failed.
func VerifyDetachedJWS(jws, content string, token Token) error {
	parts := strings.Split(jws, ".")
	if len(parts) != 3 || parts[1] != "" {
		return errors.New("not a detached JWS (want header..signature)")
	}
	raw, err := b64.DecodeString(parts[0])
	if err != nil {
		return fmt.Errorf("decode JWS header: %w", err)
	}
	var header jwsHeader
	if err := json.Unmarshal(raw, &header); err != nil {
		return fmt.Errorf("decode JWS header: %w", err)
	}
	if header.Algorithm != "HS256" {
		return fmt.Errorf("JWS algorithm %q is not HS256", header.Algorithm)
	}
	if header.KeyID != token.ID {
		return fmt.Errorf("JWS was signed with token %q, not %q", header.KeyID, token.ID)
	}
	signature, err := b64.DecodeString(parts[2])
	if err != nil {
		return fmt.Errorf("decode JWS signature: %w", err)
	}
	if !hmac.Equal(signature, sign(parts[0], content, token)) {
		return errors.New("JWS signature does not match: the token is wrong or the content was changed")
	}
	return nil
}
