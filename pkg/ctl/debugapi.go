package ctl

import (
	"fmt"
	"net/http"
	"path/filepath"

	"kplane/pkg/debug"
	"kplane/pkg/kubeconfig"
)

// debugAPI is how ctl's teaching verbs reach the components of the local
// cluster in dataDir: a client carrying the admin kubeconfig's token (the
// debug APIs admit system:masters only) over an HTTP client that trusts
// the cluster CA (the apiserver serves its debug API over https), and the
// endpoints the components announced in dataDir/debug. It fails when no
// component announced one: no cluster runs there.
func debugAPI(dataDir string) (*debug.Client, []debug.Endpoint, error) {
	endpoints, err := debug.ReadEndpoints(dataDir)
	if err != nil {
		return nil, nil, err
	}
	if len(endpoints) == 0 {
		return nil, nil, fmt.Errorf("no debug API found in %s — is a cluster running there (`ctl up`)?",
			filepath.Join(dataDir, debug.EndpointsDir))
	}
	path := filepath.Join(dataDir, "kubeconfig")
	cfg, err := kubeconfig.Load(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read the admin kubeconfig: %w", err)
	}
	admin, err := cfg.Resolve("")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	tlsConfig, err := admin.TLSConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	transport := &http.Transport{TLSClientConfig: tlsConfig, ForceAttemptHTTP2: true}
	return &debug.Client{HTTP: &http.Client{Transport: transport}, Token: admin.Token}, endpoints, nil
}
