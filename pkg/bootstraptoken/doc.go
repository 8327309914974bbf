// Package bootstraptoken holds what every part of node joining agrees on:
// the bootstrap token's format and its Secret (token.go), the detached JWS
// that signs the cluster-info ConfigMap with a token (jws.go), and the
// CA public-key pin a joining node checks the cluster's CA against
// (pin.go).
//
// A bootstrap token is "<token-id>.<token-secret>", 6 and 16 characters of
// [a-z0-9]. Its Secret, kube-system/bootstrap-token-<token-id> of type
// bootstrap.kubernetes.io/token, says what the token may be used for: to
// authenticate (as system:bootstrap:<token-id>, in system:bootstrappers)
// and to sign cluster-info. The token-id is public (it names the Secret
// and the JWS); the token-secret is what proves possession.
//
// Upstream keeps the same pieces in k8s.io/cluster-bootstrap (token/api,
// token/util, token/jws) and kubeadm's pubkeypin package; the formats here
// are theirs, so `kubeadm token` Secrets and kplane's are interchangeable.
// See docs/join-nodes.md.
package bootstraptoken
