package kubelet

// This file gives the simulated runtime's shell (package
// pkg/kubelet/runtime/simshell) its view of the API, through the
// kubelet's own client: the pod behind an address for curl and the
// NetworkPolicies that judge the connection, the ConfigMaps and Secrets of
// a pod's volumes for cat and ls, and the Services whose variables `env`
// shows, and the ServiceAccount tokens of projected volumes.

import (
	"context"
	"fmt"
	"log/slog"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/kubelet/token"
)

// shellCluster implements simshell.Cluster with the kubelet's client. A
// missing object is (nil, nil), as the interface asks. The pods behind
// an address may run on any node, and NetworkPolicies and namespaces are
// nothing a node may read (the Node authorizer), so those are read through
// network, the simulated network's client (Options.NetworkKubeconfig), as
// a network plugin reads them with its own ServiceAccount. With tokens it
// also issues the pods' ServiceAccount tokens (tokens.go).
type shellCluster struct {
	client, network *client.Client
	tokens          *token.Manager
	// log receives the token requests that fail, which would otherwise
	// only show as a missing file in the pod.
	log *slog.Logger
}

// GetPod reads a pod, on whatever node it runs.
func (s shellCluster) GetPod(ctx context.Context, namespace, name string) (*api.Pod, error) {
	return getOrNil(s.network.Pods(namespace).Get(ctx, name, client.GetOptions{}))
}

// PodByIP finds the live pod whose IP is ip (the status.podIP field
// selector upstream's apiserver also serves). A finished pod's IP may
// already be another pod's, so Succeeded and Failed pods are skipped.
func (s shellCluster) PodByIP(ctx context.Context, ip string) (*api.Pod, error) {
	list, err := s.network.Pods("").List(ctx, client.ListOptions{FieldSelector: "status.podIP=" + ip})
	if err != nil {
		return nil, fmt.Errorf("list pods with IP %s: %w", ip, err)
	}
	for _, pod := range list.Items {
		if pod.Status.Phase != api.PodSucceeded && pod.Status.Phase != api.PodFailed && !pod.Spec.HostNetwork {
			return pod, nil
		}
	}
	return nil, nil
}

// ListNetworkPolicies lists the NetworkPolicies of a namespace, which
// judge the connections from and to its pods.
func (s shellCluster) ListNetworkPolicies(ctx context.Context, namespace string) ([]*api.NetworkPolicy, error) {
	list, err := s.network.NetworkPolicies(namespace).List(ctx, client.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list networkpolicies in %s: %w", namespace, err)
	}
	return list.Items, nil
}

// GetNamespace reads a namespace, whose labels NetworkPolicies'
// namespaceSelectors match.
func (s shellCluster) GetNamespace(ctx context.Context, name string) (*api.Namespace, error) {
	return getOrNil(s.network.Namespaces().Get(ctx, name, client.GetOptions{}))
}

// ListServices lists the Services of a namespace (their variables are in
// every container's environment).
func (s shellCluster) ListServices(ctx context.Context, namespace string) ([]*api.Service, error) {
	list, err := s.client.Services(namespace).List(ctx, client.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list services in %s: %w", namespace, err)
	}
	return list.Items, nil
}

// GetService reads a Service (the kubernetes Service, whose variables
// every container has).
func (s shellCluster) GetService(ctx context.Context, namespace, name string) (*api.Service, error) {
	return getOrNil(s.client.Services(namespace).Get(ctx, name, client.GetOptions{}))
}

// GetConfigMap reads a ConfigMap.
func (s shellCluster) GetConfigMap(ctx context.Context, namespace, name string) (*api.ConfigMap, error) {
	return getOrNil(s.client.ConfigMaps(namespace).Get(ctx, name, client.GetOptions{}))
}

// GetSecret reads a Secret.
func (s shellCluster) GetSecret(ctx context.Context, namespace, name string) (*api.Secret, error) {
	return getOrNil(s.client.Secrets(namespace).Get(ctx, name, client.GetOptions{}))
}

// getOrNil turns a NotFound answer into (nil, nil).
func getOrNil[T api.Object](obj T, err error) (T, error) {
	var zero T
	if apierrors.IsNotFound(err) {
		return zero, nil
	}
	if err != nil {
		return zero, err
	}
	return obj, nil
}
