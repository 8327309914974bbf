package debug

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kplane/pkg/fileutil"
)

// EndpointsDir is the folder of a cluster's data dir where each component
// announces its debug API (see Endpoint), so `ctl` finds them itself.
const EndpointsDir = "debug"

// Endpoint is where one component serves its debug API. A component
// started with --debug-endpoint-file writes it there once it listens.
type Endpoint struct {
	// Component is the component's name in the cluster ("scheduler",
	// "kubelet-node1", "controller-manager-2").
	Component string `json:"component"`
	// URL is the API's base: http://127.0.0.1:PORT, or the apiserver's
	// https URL for the apiserver.
	URL string `json:"url"`
	// PID is the process serving it.
	PID int `json:"pid"`
	// Identity is the process's leader-election identity, if it has one,
	// so `ctl fault kill` can find the leader's process.
	Identity string `json:"identity,omitempty"`
}

// WriteEndpoint writes e to path as JSON, atomically.
func WriteEndpoint(path string, e Endpoint) error {
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return fmt.Errorf("encode debug endpoint: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write debug endpoint: %w", err)
	}
	if err := fileutil.WriteAtomic(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write debug endpoint: %w", err)
	}
	return nil
}

// EndpointFile is the file component announces itself in, in dataDir.
func EndpointFile(dataDir, component string) string {
	return filepath.Join(dataDir, EndpointsDir, component+".json")
}

// ReadEndpoints returns the endpoints announced in dataDir, by component
// name. Files of processes that have exited are skipped.
func ReadEndpoints(dataDir string) ([]Endpoint, error) {
	dir := filepath.Join(dataDir, EndpointsDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read debug endpoints: %w", err)
	}
	var out []Endpoint
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var ep Endpoint
		if json.Unmarshal(data, &ep) != nil || ep.URL == "" {
			continue
		}
		if ep.PID > 0 {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", ep.PID)); err != nil {
				continue
			}
		}
		out = append(out, ep)
	}
	slices.SortFunc(out, func(a, b Endpoint) int { return strings.Compare(a.Component, b.Component) })
	return out, nil
}
