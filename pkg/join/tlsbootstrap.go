package join

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/bootstraptoken"
	"kplane/pkg/client"
	"kplane/pkg/kubeconfig"
)

// Credentials are a node's client certificate and its private key, PEM.
type Credentials struct {
	CertPEM []byte
	KeyPEM  []byte
	// CSRName is the CertificateSigningRequest they were issued through.
	CSRName string
}

// TLSBootstrap asks the cluster for a kubelet client certificate as the
// kubelet's bootstrap does: a fresh ECDSA P-256 key, a
// CertificateSigningRequest to signer kube-apiserver-client-kubelet for
// CN system:node:<NodeName>, O system:nodes, posted with the bootstrap
// token, and a wait for the issued certificate.
type TLSBootstrap struct {
	Server   string
	CAPEM    []byte
	Token    bootstraptoken.Token
	NodeName string
	// Poll is how often the request is read back; 0 means 500 ms.
	Poll time.Duration
}

// Request posts the CSR and waits until it is issued, denied or failed, or
// ctx ends.
func (b TLSBootstrap) Request(ctx context.Context) (Credentials, error) {
	if b.NodeName == "" {
		return Credentials{}, errors.New("a node name is required")
	}
	c, err := client.New(&client.Config{Host: b.Server, CAData: b.CAPEM, Token: b.Token.String(), UserAgent: "ctl-join"})
	if err != nil {
		return Credentials{}, fmt.Errorf("client for TLS bootstrap: %w", err)
	}
	defer c.Close()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Credentials{}, fmt.Errorf("generate node key: %w", err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: auth.NodeUserNamePrefix + b.NodeName, Organization: []string{auth.NodesGroup}},
	}, key)
	if err != nil {
		return Credentials{}, fmt.Errorf("build certificate request: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return Credentials{}, fmt.Errorf("encode node key: %w", err)
	}
	csr, err := c.CertificateSigningRequests().Create(ctx, &api.CertificateSigningRequest{
		TypeMeta: api.TypeMeta{APIVersion: "certificates.k8s.io/v1", Kind: "CertificateSigningRequest"},
		// Upstream's kubelet names its requests node-csr-<hash>; a server
		// generated suffix does the same job of keeping them apart.
		ObjectMeta: api.ObjectMeta{GenerateName: "node-csr-"},
		Spec: api.CertificateSigningRequestSpec{
			Request:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}),
			SignerName: api.KubeAPIServerClientKubeletSignerName,
			Usages:     []api.KeyUsage{api.UsageDigitalSignature, api.UsageClientAuth},
		},
	}, client.CreateOptions{})
	if err != nil {
		return Credentials{}, fmt.Errorf("create certificate signing request as %s%s: %w", bootstraptoken.UserPrefix, b.Token.ID, err)
	}
	certPEM, err := b.waitForCertificate(ctx, c, csr.Name)
	if err != nil {
		return Credentials{}, err
	}
	return Credentials{CertPEM: certPEM, KeyPEM: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), CSRName: csr.Name}, nil
}

// waitForCertificate reads the request back until it carries a
// certificate, or says why it never will.
func (b TLSBootstrap) waitForCertificate(ctx context.Context, c *client.Client, name string) ([]byte, error) {
	poll := b.Poll
	if poll <= 0 {
		poll = 500 * time.Millisecond
	}
	for {
		csr, err := c.CertificateSigningRequests().Get(ctx, name, client.GetOptions{})
		if err == nil {
			if cond, denied := api.CSRCondition(csr, api.CertificateDenied); denied {
				return nil, fmt.Errorf("certificate signing request %s was denied: %s %s", name, cond.Reason, cond.Message)
			}
			if cond, failed := api.CSRCondition(csr, api.CertificateFailed); failed {
				return nil, fmt.Errorf("certificate signing request %s failed: %s %s", name, cond.Reason, cond.Message)
			}
			if len(csr.Status.Certificate) > 0 {
				return csr.Status.Certificate, nil
			}
		}
		select {
		case <-ctx.Done():
			state := "pending (is the controller-manager running csrapproving and csrsigning, with --cluster-signing-* files?)"
			if err != nil {
				state = err.Error()
			} else if _, ok := api.CSRCondition(csr, api.CertificateApproved); ok {
				state = "approved but not issued (does the controller-manager run csrsigning with --cluster-signing-* files?)"
			}
			return nil, fmt.Errorf("wait for certificate signing request %s: %w; it is %s", name, ctx.Err(), state)
		case <-time.After(poll):
		}
	}
}

// KubeletKubeconfig is the kubeconfig the kubelet runs with after joining:
// the server, the discovered CA, and the node's client certificate.
func KubeletKubeconfig(server string, caPEM []byte, nodeName string, creds Credentials) *kubeconfig.Config {
	cfg := kubeconfig.New("kubernetes", server, caPEM, auth.NodeUserNamePrefix+nodeName, "")
	cfg.Users[0].User = kubeconfig.AuthInfo{ClientCertificateData: creds.CertPEM, ClientKeyData: creds.KeyPEM}
	return cfg
}
