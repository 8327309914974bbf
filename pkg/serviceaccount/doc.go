// Package serviceaccount issues and checks ServiceAccount tokens: the
// credentials a process in a pod (or a controller acting as a
// ServiceAccount) presents to the apiserver.
//
// A token is a JSON Web Token signed with RS256 by a key only the apiserver
// (and, for legacy tokens, the controller-manager) holds: DATA_DIR/pki/sa.key,
// whose public half sa.pub is what anyone verifying the tokens needs. There
// are two formats, as upstream:
//
//   - Bound tokens (claims.go), issued by the TokenRequest API
//     (POST serviceaccounts/<name>/token, `kubectl create token`). They carry
//     the issuer (--service-account-issuer), audiences, an expiry, a unique
//     id (jti) and a private "kubernetes.io" claim naming the namespace, the
//     ServiceAccount and, optionally, the Pod, Secret or Node the token is
//     bound to. A bound token stops authenticating once that object is
//     deleted (or replaced by one with another uid), so a pod's token dies
//     with the pod even before it expires.
//   - Legacy tokens (legacy.go), which the serviceaccount-token controller
//     writes into Secrets of type kubernetes.io/service-account-token. They
//     never expire; they are valid while the Secret exists and holds them.
//
// Validation (authenticator.go) checks the signature, issuer, audience and
// time window, then looks the named objects up through an ObjectGetter the
// apiserver provides (its watch caches), and names the user
// system:serviceaccount:<namespace>:<name>.
//
// Upstream: pkg/serviceaccount/{jwt.go,claims.go,legacy.go,util.go} and
// staging/src/k8s.io/apiserver/pkg/authentication/serviceaccount/util.go.
package serviceaccount
