package join

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/bootstraptoken"
	"kplane/pkg/kubeconfig"
)

// Discovery is what discovery needs: where to ask, the token that signs
// cluster-info, and the CA pins (kubeadm's
// --discovery-token-ca-cert-hash). UnsafeSkipCAVerification trusts any CA
// the JWS vouches for, as kubeadm's
// --discovery-token-unsafe-skip-ca-verification; one of the two is
// required.
type Discovery struct {
	Server                   string
	Token                    bootstraptoken.Token
	CAPins                   []string
	UnsafeSkipCAVerification bool
	// Retry is how long to wait between attempts while cluster-info is
	// missing or not yet signed for the token (the bootstrap signer may
	// lag a new token by a moment); 0 means one second.
	Retry time.Duration
}

// ErrNoSignature says cluster-info carries no signature for the token:
// the token does not exist, expired, is not for signing, or the bootstrap
// signer has not caught up yet.
var ErrNoSignature = errors.New("cluster-info has no signature for this token (is the token valid and for signing, and does the controller-manager run the bootstrapsigner controller?)")

// Discover returns the cluster CA's PEM once cluster-info is verified, and
// retries while it is missing or unsigned until ctx ends. A wrong
// signature or pin is final: retrying would not change the answer.
func (d Discovery) Discover(ctx context.Context) ([]byte, error) {
	pins := make([]string, 0, len(d.CAPins))
	for _, p := range d.CAPins {
		pin, err := bootstraptoken.ParsePin(p)
		if err != nil {
			return nil, err
		}
		pins = append(pins, pin)
	}
	if len(pins) == 0 && !d.UnsafeSkipCAVerification {
		return nil, errors.New("give the CA's public key pin with --discovery-token-ca-cert-hash sha256:<hex> (`ctl token create --print-join-command` prints it), or accept any CA with --discovery-token-unsafe-skip-ca-verification")
	}
	retry := d.Retry
	if retry <= 0 {
		retry = time.Second
	}
	insecure := &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12} //nolint:gosec // discovery: trust comes from the JWS and the pin, checked below
	var lastErr error
	for {
		caPEM, err := d.verify(ctx, insecure, pins)
		if err == nil {
			return caPEM, nil
		}
		var final finalError
		if errors.As(err, &final) {
			return nil, final.err
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("discovery from %s: %w (gave up: %v)", d.Server, lastErr, ctx.Err())
		case <-time.After(retry):
		}
	}
}

// finalError wraps an error retrying cannot fix.
type finalError struct{ err error }

func (f finalError) Error() string { return f.err.Error() }

// verify is one discovery attempt.
func (d Discovery) verify(ctx context.Context, insecure *tls.Config, pins []string) ([]byte, error) {
	cm, err := fetchClusterInfo(ctx, d.Server, insecure)
	if err != nil {
		return nil, err
	}
	content, ok := cm.Data[bootstraptoken.KubeconfigKey]
	if !ok {
		return nil, fmt.Errorf("cluster-info has no %q key", bootstraptoken.KubeconfigKey)
	}
	jws, ok := cm.Data[bootstraptoken.JWSKeyPrefix+d.Token.ID]
	if !ok {
		return nil, ErrNoSignature
	}
	if err := bootstraptoken.VerifyDetachedJWS(jws, content, d.Token); err != nil {
		return nil, finalError{fmt.Errorf("cluster-info from %s is not signed by this token: %w", d.Server, err)}
	}
	caPEM, err := caFromKubeconfig(content)
	if err != nil {
		return nil, finalError{err}
	}
	if !d.UnsafeSkipCAVerification {
		if err := bootstraptoken.VerifyPins(caPEM, pins); err != nil {
			return nil, finalError{err}
		}
	}
	// Read it again, now checking the server's certificate against the
	// CA: the content must be the same, from a server the CA vouches for.
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	secure, err := fetchClusterInfo(ctx, d.Server, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})
	if err != nil {
		return nil, finalError{fmt.Errorf("%s does not serve a certificate the discovered CA issued: %w", d.Server, err)}
	}
	if secure.Data[bootstraptoken.KubeconfigKey] != content {
		return nil, finalError{errors.New("cluster-info changed between the insecure and the secure read; refusing")}
	}
	return caPEM, nil
}

// fetchClusterInfo reads kube-public/cluster-info without credentials.
func fetchClusterInfo(ctx context.Context, server string, tlsConfig *tls.Config) (*api.ConfigMap, error) {
	url := server + "/api/v1/namespaces/" + bootstraptoken.ClusterInfoNamespace + "/configmaps/" + bootstraptoken.ClusterInfoName
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, finalError{fmt.Errorf("discovery URL %s: %w", url, err)}
	}
	req.Header.Set("Accept", "application/json")
	httpClient := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig}, Timeout: 10 * time.Second}
	defer httpClient.CloseIdleConnections()
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get cluster-info: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("read cluster-info: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("get cluster-info: %s: %s", resp.Status, bytes.TrimSpace(body))
	}
	var cm api.ConfigMap
	if err := json.Unmarshal(body, &cm); err != nil {
		return nil, fmt.Errorf("decode cluster-info: %w", err)
	}
	return &cm, nil
}

// caFromKubeconfig takes the CA out of cluster-info's kubeconfig.
func caFromKubeconfig(content string) ([]byte, error) {
	cfg, err := kubeconfig.Parse([]byte(content))
	if err != nil {
		return nil, fmt.Errorf("cluster-info kubeconfig: %w", err)
	}
	if len(cfg.Clusters) == 0 || len(cfg.Clusters[0].Cluster.CertificateAuthorityData) == 0 {
		return nil, errors.New("cluster-info kubeconfig has no cluster with certificate-authority-data")
	}
	return cfg.Clusters[0].Cluster.CertificateAuthorityData, nil
}
