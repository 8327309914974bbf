package pki

import (
	"fmt"
	"path/filepath"
	"time"
)

// UserCertificate is a client certificate for a person, and its key, both
// PEM-encoded: what `ctl user add` embeds in a kubeconfig (kubeadm's
// `kubeadm kubeconfig user --client-name` does the same).
type UserCertificate struct {
	CertPEM []byte
	KeyPEM  []byte
}

// IssueUserCertificate signs a new client certificate with the cluster CA
// kept in dir (ca.crt and ca.key, written by Ensure): CN=userName and one
// O per group, which the apiserver reads back as the user name and groups.
// The certificate lists the O values as a DER SET, which sorts them
// (shorter first, then bytewise), so the groups may come back in another
// order than given. It is valid for a year, or until the CA expires if that is sooner, and
// is written nowhere: the caller decides where it goes. Each call makes a
// new key, so issuing again for the same name gives a second, equally
// valid certificate (Kubernetes cannot revoke certificates; take rights
// away by deleting the user's bindings).
func IssueUserCertificate(dir, userName string, groups []string) (UserCertificate, error) {
	if userName == "" {
		return UserCertificate{}, fmt.Errorf("user certificate: the user name is empty")
	}
	now := time.Now()
	ca, err := loadCA(filepath.Join(dir, CACertFileName), filepath.Join(dir, CAKeyFileName), now)
	if err != nil {
		return UserCertificate{}, fmt.Errorf("user certificate for %s: the cluster CA: %w", userName, err)
	}
	pair, err := newAddon(ca, AddonCertificate{CommonName: userName, Organizations: groups}, now)
	if err != nil {
		return UserCertificate{}, fmt.Errorf("user certificate for %s: %w", userName, err)
	}
	return UserCertificate{CertPEM: pair.certPEM, KeyPEM: pair.keyPEM}, nil
}
