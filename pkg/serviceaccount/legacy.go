package serviceaccount

import (
	"github.com/go-jose/go-jose/v4/jwt"

	"kplane/pkg/auth"
)

// LegacyIssuer is the issuer of Secret-based tokens, fixed upstream
// whatever --service-account-issuer says.
const LegacyIssuer = "kubernetes/serviceaccount"

// Secret type, annotations and keys of legacy token Secrets.
const (
	// SecretTypeServiceAccountToken is the type of a Secret that holds a
	// ServiceAccount's legacy token.
	SecretTypeServiceAccountToken = "kubernetes.io/service-account-token"
	// ServiceAccountNameAnnotation names the ServiceAccount a token Secret
	// is for; the user sets it.
	ServiceAccountNameAnnotation = "kubernetes.io/service-account.name"
	// ServiceAccountUIDAnnotation is that ServiceAccount's uid, which the
	// token controller fills in.
	ServiceAccountUIDAnnotation = "kubernetes.io/service-account.uid"
	// SecretTokenKey, SecretCACertKey and SecretNamespaceKey are the three
	// entries the token controller writes into such a Secret.
	SecretTokenKey     = "token"
	SecretCACertKey    = "ca.crt"
	SecretNamespaceKey = "namespace"
)

// legacyClaims are the private claims of a Secret-based token, with
// upstream's flat, slash-separated names.
type legacyClaims struct {
	ServiceAccountName string `json:"kubernetes.io/serviceaccount/service-account.name"`
	ServiceAccountUID  string `json:"kubernetes.io/serviceaccount/service-account.uid"`
	SecretName         string `json:"kubernetes.io/serviceaccount/secret.name"`
	Namespace          string `json:"kubernetes.io/serviceaccount/namespace"`
}

// IssueLegacy signs a token for the ServiceAccount namespace/name (uid) to
// be stored in the Secret secretName. Such tokens have no audience and no
// expiry: they are valid as long as the Secret holds them.
func (i *Issuer) IssueLegacy(namespace, name, uid, secretName string) (string, error) {
	public := &jwt.Claims{Issuer: LegacyIssuer, Subject: auth.ServiceAccountUsername(namespace, name)}
	private := &legacyClaims{ServiceAccountName: name, ServiceAccountUID: uid, SecretName: secretName, Namespace: namespace}
	return i.sign(public, private)
}
