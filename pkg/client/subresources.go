package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"kplane/pkg/api"
)

// GetScale reads the scale subresource of a workload (deployments,
// replicasets, statefulsets, replicationcontrollers): an autoscaling/v1
// Scale with the desired and current replica counts and the pod selector.
// This is how the HPA and `kubectl scale` see any scalable kind the same way.
func (c *Client) GetScale(ctx context.Context, res Resource, namespace, name string) (*api.Scale, error) {
	path, err := objectPath(res, namespace, name, "scale")
	if err != nil {
		return nil, fmt.Errorf("get scale: %w", err)
	}
	out := &api.Scale{}
	if err := c.into(ctx, &request{method: http.MethodGet, path: path}, out); err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateScale sets a workload's spec.replicas through its scale
// subresource. With scale.ResourceVersion set it is a compare-and-swap on
// the workload (a stale one is a Conflict); empty, it always applies.
func (c *Client) UpdateScale(ctx context.Context, res Resource, namespace string, scale *api.Scale) (*api.Scale, error) {
	if scale == nil {
		return nil, errors.New("update scale: scale is nil")
	}
	path, err := objectPath(res, namespace, scale.Name, "scale")
	if err != nil {
		return nil, fmt.Errorf("update scale: %w", err)
	}
	body := *scale
	body.TypeMeta = api.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"}
	r, err := newRequest(http.MethodPut, path, nil, &body)
	if err != nil {
		return nil, err
	}
	out := &api.Scale{}
	if err := c.into(ctx, r, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Bind assigns a pod to a node: POST pods/<binding.Name>/binding in
// binding.Namespace with binding.Target naming the node. It is the
// scheduler's one write; the apiserver sets spec.nodeName once and answers
// a second binding with a Conflict.
func (c *Client) Bind(ctx context.Context, binding *api.Binding) error {
	if binding == nil {
		return errors.New("bind: binding is nil")
	}
	path, err := objectPath(PodsResource, binding.Namespace, binding.Name, "binding")
	if err != nil {
		return fmt.Errorf("bind: %w", err)
	}
	body := *binding
	body.TypeMeta = api.TypeMeta{Kind: "Binding", APIVersion: "v1"}
	r, err := newRequest(http.MethodPost, path, nil, &body)
	if err != nil {
		return err
	}
	if _, err := c.do(ctx, r); err != nil {
		return fmt.Errorf("bind pod %s/%s to %s: %w", binding.Namespace, binding.Name, binding.Target.Name, err)
	}
	return nil
}

// Evict asks for a pod's deletion through POST pods/<name>/eviction in
// eviction.Namespace: the apiserver deletes the pod only if its
// PodDisruptionBudget allows, and answers a TooManyRequests error
// (apierrors.IsTooManyRequests) when the budget does not, which the caller
// retries later. eviction.DeleteOptions (grace period, preconditions,
// dryRun) apply to the deletion. It is what drain uses.
func (c *Client) Evict(ctx context.Context, eviction *api.Eviction) error {
	if eviction == nil {
		return errors.New("evict: eviction is nil")
	}
	path, err := objectPath(PodsResource, eviction.Namespace, eviction.Name, "eviction")
	if err != nil {
		return fmt.Errorf("evict: %w", err)
	}
	body := *eviction
	body.TypeMeta = api.TypeMeta{Kind: "Eviction", APIVersion: "policy/v1"}
	r, err := newRequest(http.MethodPost, path, nil, &body)
	if err != nil {
		return err
	}
	if _, err := c.do(ctx, r); err != nil {
		return fmt.Errorf("evict pod %s/%s: %w", eviction.Namespace, eviction.Name, err)
	}
	return nil
}

// CreateToken asks for a token of the ServiceAccount name in namespace:
// POST serviceaccounts/<name>/token with req (audiences, expiration, the
// object the token is bound to). The answer's status holds the token and
// when it expires; nothing is stored. It is how the kubelet gets a pod's
// projected token and how the controller manager gets each controller's.
func (c *Client) CreateToken(ctx context.Context, namespace, name string, req *api.TokenRequest) (*api.TokenRequest, error) {
	if req == nil {
		return nil, errors.New("create token: request is nil")
	}
	path, err := objectPath(ServiceAccountsResource, namespace, name, "token")
	if err != nil {
		return nil, fmt.Errorf("create token: %w", err)
	}
	body := *req
	body.TypeMeta = api.TypeMeta{Kind: "TokenRequest", APIVersion: "authentication.k8s.io/v1"}
	r, err := newRequest(http.MethodPost, path, nil, &body)
	if err != nil {
		return nil, err
	}
	out := &api.TokenRequest{}
	if err := c.into(ctx, r, out); err != nil {
		return nil, fmt.Errorf("create token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return out, nil
}

// UpdateApproval replaces a CertificateSigningRequest's conditions through
// its /approval subresource, which is how a request is approved or denied
// (`kubectl certificate approve` and the csrapproving controller).
func (c *Client) UpdateApproval(ctx context.Context, csr *api.CertificateSigningRequest) (*api.CertificateSigningRequest, error) {
	return c.CertificateSigningRequests().replace(ctx, csr, UpdateOptions{}, "approval")
}
