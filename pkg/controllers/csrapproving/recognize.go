package csrapproving

import (
	"crypto/x509"
	"fmt"
	"slices"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/auth"
)

// kubeletClientUsages are the usages a kubelet client certificate may ask
// for; "client auth" is required.
var kubeletClientUsages = []api.KeyUsage{api.UsageDigitalSignature, api.UsageKeyEncipherment, api.UsageClientAuth}

// IsNodeClientCert says whether a request is for a kubelet's client
// certificate, upstream's isNodeClientCert (pkg/controller/certificates/
// approver): signer kube-apiserver-client-kubelet, organization exactly
// system:nodes, common name system:node:<name>, no subject alternative
// names, and only client usages, "client auth" among them. The reason
// says which rule failed.
func IsNodeClientCert(csr *api.CertificateSigningRequest, req *x509.CertificateRequest) (ok bool, reason string) {
	switch {
	case csr.Spec.SignerName != api.KubeAPIServerClientKubeletSignerName:
		return false, "signer is not " + api.KubeAPIServerClientKubeletSignerName
	case !slices.Equal(req.Subject.Organization, []string{auth.NodesGroup}):
		return false, "organization is not exactly " + auth.NodesGroup
	case !strings.HasPrefix(req.Subject.CommonName, auth.NodeUserNamePrefix) || req.Subject.CommonName == auth.NodeUserNamePrefix:
		return false, "common name does not start with " + auth.NodeUserNamePrefix
	case len(req.DNSNames) > 0 || len(req.EmailAddresses) > 0 || len(req.IPAddresses) > 0 || len(req.URIs) > 0:
		return false, "a client certificate has no subject alternative names"
	case !slices.Contains(csr.Spec.Usages, api.UsageClientAuth):
		return false, "usages lack client auth"
	}
	for _, u := range csr.Spec.Usages {
		if !slices.Contains(kubeletClientUsages, u) {
			return false, fmt.Sprintf("usage %q is not for a client certificate", u)
		}
	}
	return true, ""
}

// subresourceFor is the certificatesigningrequests subresource whose
// create permission lets a request be approved automatically: selfnodeclient
// when the node renews its own certificate (the requester is the
// certificate's common name), nodeclient otherwise (a bootstrap token
// asking for a new node's), as upstream's recognizers.
func subresourceFor(csr *api.CertificateSigningRequest, req *x509.CertificateRequest) string {
	if csr.Spec.Username == req.Subject.CommonName {
		return "selfnodeclient"
	}
	return "nodeclient"
}
