package metricsserver

// This file serves the discovery documents of metrics.k8s.io, what any
// Kubernetes API server answers for its groups: the group list at /apis,
// the group at /apis/metrics.k8s.io, and the resource list at
// /apis/metrics.k8s.io/v1beta1. The apiserver's aggregator reads the
// resource list to merge the group into its own discovery, which is how
// kubectl learns that `kubectl top` has something to call.
//
// Only the legacy (v1) documents are served. A client asking for the
// aggregated form (apidiscovery.k8s.io/v2) gets the legacy one with
// Content-Type application/json, which kubectl takes as "not supported"
// and falls back on, as it does with older servers.

import (
	"net/http"

	"kplane/pkg/apiserver/response"
)

// groupVersionForDiscovery is meta/v1 GroupVersionForDiscovery.
type groupVersionForDiscovery struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

// apiGroup is meta/v1 APIGroup.
type apiGroup struct {
	Kind             string                     `json:"kind,omitempty"`
	APIVersion       string                     `json:"apiVersion,omitempty"`
	Name             string                     `json:"name"`
	Versions         []groupVersionForDiscovery `json:"versions"`
	PreferredVersion groupVersionForDiscovery   `json:"preferredVersion"`
}

// apiResource is meta/v1 APIResource.
type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
}

// metricsGroup is the one group served.
func metricsGroup() apiGroup {
	v := groupVersionForDiscovery{GroupVersion: GroupVersion, Version: Version}
	return apiGroup{Name: GroupName, Versions: []groupVersionForDiscovery{v}, PreferredVersion: v}
}

// metricsResources are the resources of metrics.k8s.io/v1beta1, with
// upstream's empty singular names and get/list verbs.
var metricsResources = []apiResource{
	{Name: "nodes", Kind: "NodeMetrics", Verbs: []string{"get", "list"}},
	{Name: "pods", Namespaced: true, Kind: "PodMetrics", Verbs: []string{"get", "list"}},
}

func serveGroupList(w http.ResponseWriter, r *http.Request) {
	if readOnly(w, r) {
		response.WriteJSON(w, http.StatusOK, map[string]any{
			"kind": "APIGroupList", "apiVersion": "v1", "groups": []apiGroup{metricsGroup()},
		})
	}
}

func serveGroup(w http.ResponseWriter, r *http.Request) {
	if readOnly(w, r) {
		g := metricsGroup()
		g.Kind, g.APIVersion = "APIGroup", "v1"
		response.WriteJSON(w, http.StatusOK, g)
	}
}

func serveResourceList(w http.ResponseWriter, r *http.Request) {
	if readOnly(w, r) {
		response.WriteJSON(w, http.StatusOK, map[string]any{
			"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": GroupVersion, "resources": metricsResources,
		})
	}
}
