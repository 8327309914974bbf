package debug

import (
	"fmt"
	"net/http"
	"path/filepath"

	"kplane/pkg/client"
)

// Connect is how a tool on the cluster's machine — ctl's teaching verbs,
// the web view — reaches the components of the local cluster in dataDir:
// a Client carrying the admin kubeconfig's token (the debug APIs admit
// system:masters only) over an HTTP client that trusts the cluster CA (the
// apiserver serves its debug API over https), and the endpoints the
// components announced in dataDir/debug. It fails when no component
// announced one: no cluster runs there.
func Connect(dataDir string) (*Client, []Endpoint, error) {
	endpoints, err := LocalEndpoints(dataDir)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := client.ConfigFromKubeconfig(filepath.Join(dataDir, "kubeconfig"), "")
	if err != nil {
		return nil, nil, fmt.Errorf("read the admin kubeconfig: %w", err)
	}
	transport := &http.Transport{TLSClientConfig: cfg.TLSClientConfig, ForceAttemptHTTP2: true}
	return &Client{HTTP: &http.Client{Transport: transport}, Token: cfg.Token}, endpoints, nil
}

// LocalEndpoints are the endpoints the components of the cluster in
// dataDir announced, for the callers that need no client (listing them,
// finding a leader's process to kill). It fails when none did: no cluster
// runs there.
func LocalEndpoints(dataDir string) ([]Endpoint, error) {
	endpoints, err := ReadEndpoints(dataDir)
	if err != nil {
		return nil, err
	}
	if len(endpoints) == 0 {
		return nil, fmt.Errorf("no debug API found in %s — is a cluster running there (`ctl up`)?",
			filepath.Join(dataDir, EndpointsDir))
	}
	return endpoints, nil
}
