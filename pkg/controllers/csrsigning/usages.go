package csrsigning

import (
	"crypto/x509"
	"fmt"
	"time"

	"kplane/pkg/api"
)

// keyUsages turns a CSR's usages into the certificate's key usage bits
// and extended key usages, as upstream's certificates/v1 KeyUsagesFromStrings
// does for the usages kplane's signers accept.
func keyUsages(usages []api.KeyUsage) (x509.KeyUsage, []x509.ExtKeyUsage, error) {
	var keyUsage x509.KeyUsage
	var ext []x509.ExtKeyUsage
	for _, u := range usages {
		switch u {
		case api.UsageDigitalSignature:
			keyUsage |= x509.KeyUsageDigitalSignature
		case api.UsageKeyEncipherment:
			keyUsage |= x509.KeyUsageKeyEncipherment
		case api.UsageClientAuth:
			ext = append(ext, x509.ExtKeyUsageClientAuth)
		default:
			return 0, nil, fmt.Errorf("usage %q is not allowed for a client certificate", u)
		}
	}
	return keyUsage, ext, nil
}

// validity is how long the certificate lasts: what the request asks for
// (spec.expirationSeconds), but never more than the signer's maximum
// (--cluster-signing-duration), as upstream's duration rule.
func validity(csr *api.CertificateSigningRequest, max time.Duration) time.Duration {
	if s := csr.Spec.ExpirationSeconds; s != nil {
		if asked := time.Duration(*s) * time.Second; asked < max {
			return asked
		}
	}
	return max
}
