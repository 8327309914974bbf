package pki

import "time"

// The apiserver's client identity towards kubelets. kubeadm issues the same
// certificate (apiserver-kubelet-client.crt) so that the apiserver can
// authenticate itself when it calls a kubelet for `kubectl logs`, `exec` or
// `port-forward`: the kubelet trusts any client certificate signed by the
// cluster CA and learns from the subject who is calling.
const (
	// KubeletClientCommonName is the user name the certificate carries.
	KubeletClientCommonName = "kube-apiserver-kubelet-client"
	// KubeletClientOrganization is the group it carries. kubeadm used
	// system:masters until v1.29 and kubeadm:cluster-admins since, so that
	// this certificate is no longer an irrevocable superuser; kplane follows
	// the current layout.
	KubeletClientOrganization = "kubeadm:cluster-admins"
)

// newKubeletClient creates the apiserver's kubelet client certificate,
// signed by ca and usable only for TLS client authentication.
func newKubeletClient(ca *keyPair, now time.Time) (*keyPair, error) {
	return newAddon(ca, kubeletClientCertificate, now)
}

// kubeletClientCertificate is the apiserver's kubelet client certificate:
// no hosts, so it is for client authentication only.
var kubeletClientCertificate = AddonCertificate{
	CommonName: KubeletClientCommonName, Organizations: []string{KubeletClientOrganization},
}

// loadKubeletClient reads the kubelet client certificate and says why it
// cannot be used, if it cannot: not issued by ca for client authentication,
// a different subject, or about to expire.
func loadKubeletClient(certFile, keyFile string, ca *keyPair, now time.Time) (*keyPair, error) {
	return loadLeaf(certFile, keyFile, kubeletClientCertificate, ca, now)
}
