// Package join is the node side of joining a cluster, what `kubeadm join`
// and the kubelet's TLS bootstrap do together, in two steps that each prove
// something:
//
//  1. Discovery (discovery.go): with only a bootstrap token and the pin of
//     the cluster CA's public key, fetch kube-public/cluster-info over a
//     connection that cannot be trusted yet. Its detached JWS, keyed by the
//     token, proves the ConfigMap came from someone who knows the token;
//     the pin proves the CA in it is the cluster's. Then read it again over
//     TLS checked against that CA, which proves the server holds a
//     certificate the CA issued.
//  2. TLS bootstrap (tlsbootstrap.go): authenticated by the token, as
//     system:bootstrap:<id>, post a CertificateSigningRequest for a new key
//     (CN system:node:<name>, O system:nodes) and wait for the csrapproving
//     controller to approve it and the csrsigning controller to issue it.
//     The kubelet's kubeconfig then carries that client certificate, and
//     the node acts as system:node:<name> under the Node authorizer and
//     NodeRestriction from its first request.
//
// `ctl join` (pkg/ctl/join.go) runs both and starts the kubelet. Upstream:
// kubernetes/cmd/kubeadm/app/discovery/token and
// kubernetes/pkg/kubelet/certificate/bootstrap. See docs/join-nodes.md.
package join
