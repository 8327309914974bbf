package fault

import (
	"fmt"
	"strings"

	"kplane/pkg/cluster"
	"kplane/pkg/debug"
)

// EndpointNamed finds component's debug endpoint among endpoints, the ones
// announced in dataDir (named in the error).
func EndpointNamed(endpoints []debug.Endpoint, component, dataDir string) (debug.Endpoint, error) {
	var names []string
	for _, ep := range endpoints {
		if ep.Component == component {
			return ep, nil
		}
		names = append(names, ep.Component)
	}
	return debug.Endpoint{}, fmt.Errorf("no component %q announced a debug API in %s (found: %s)", component, dataDir, strings.Join(names, ", "))
}

// KubeletEndpoint finds the debug endpoint of node's kubelet.
func KubeletEndpoint(endpoints []debug.Endpoint, node, dataDir string) (debug.Endpoint, error) {
	want := cluster.KubeletComponent(node)
	var nodes []string
	for _, ep := range endpoints {
		if ep.Component == want {
			return ep, nil
		}
		if name, ok := strings.CutPrefix(ep.Component, "kubelet-"); ok {
			nodes = append(nodes, name)
		}
	}
	return debug.Endpoint{}, fmt.Errorf("no kubelet of node %q announced a debug API in %s (nodes found: %s)",
		node, dataDir, strings.Join(nodes, ", "))
}
