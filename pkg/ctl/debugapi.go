package ctl

import (
	"fmt"
	"net/http"
	"path/filepath"

	"kplane/pkg/client"
	"kplane/pkg/debug"
)

// debugAPI is how ctl's teaching verbs reach the components of the local
// cluster in dataDir: a client carrying the admin kubeconfig's token (the
// debug APIs admit system:masters only) over an HTTP client that trusts
// the cluster CA (the apiserver serves its debug API over https), and the
// endpoints the components announced in dataDir/debug. It fails when no
// component announced one: no cluster runs there.
func debugAPI(dataDir string) (*debug.Client, []debug.Endpoint, error) {
	endpoints, err := debugEndpoints(dataDir)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := client.ConfigFromKubeconfig(filepath.Join(dataDir, "kubeconfig"), "")
	if err != nil {
		return nil, nil, fmt.Errorf("read the admin kubeconfig: %w", err)
	}
	transport := &http.Transport{TLSClientConfig: cfg.TLSClientConfig, ForceAttemptHTTP2: true}
	return &debug.Client{HTTP: &http.Client{Transport: transport}, Token: cfg.Token}, endpoints, nil
}

// debugEndpoints are the endpoints the components of the cluster in
// dataDir announced, for the verbs that need no client (`ctl debug
// endpoints`, finding a leader to kill). It fails when none did: no
// cluster runs there.
func debugEndpoints(dataDir string) ([]debug.Endpoint, error) {
	endpoints, err := debug.ReadEndpoints(dataDir)
	if err != nil {
		return nil, err
	}
	if len(endpoints) == 0 {
		return nil, fmt.Errorf("no debug API found in %s — is a cluster running there (`ctl up`)?",
			filepath.Join(dataDir, debug.EndpointsDir))
	}
	return endpoints, nil
}
