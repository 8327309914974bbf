// Package token is the kubelet's ServiceAccount token manager: it obtains
// the tokens that projected serviceAccountToken volume sources put in pods
// (the kube-api-access-xxxxx volume every pod gets) and keeps them fresh.
//
// The mechanism, as upstream's pkg/kubelet/token/token_manager.go:
//
//   - A pod's token is asked of the apiserver with a TokenRequest
//     (POST /api/v1/namespaces/<ns>/serviceaccounts/<sa>/token) bound to
//     the pod — boundObjectRef {kind Pod, apiVersion v1, name, uid} — so the
//     apiserver stops accepting it once the pod is gone, with the
//     source's audience and expirationSeconds (3607 for kube-api-access).
//     The kubelet asks as its node, and the Node authorizer lets a node ask
//     only for the pods bound to it.
//   - Answers are cached per question (ServiceAccount, audiences, lifetime,
//     bound pod). A cached token is reused until 80 % of its lifetime has
//     passed, or 24 hours, whichever comes first; then a new one is asked.
//     If that fails, the old token is returned while it is still valid.
//   - Forget drops a pod's tokens when the pod goes; expired ones are
//     swept at most once a minute, while a token is asked for.
//
// Upstream adds up to 10 s of random jitter to the refresh time so that
// many pods do not refresh at once; kplane leaves it out so the refresh
// time is exact and teachable.
package token
