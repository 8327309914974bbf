package namespace

// This file holds the two writes to the Namespace object itself: setting
// status.phase Terminating, and removing the "kubernetes" finalizer through
// the namespaces/{name}/finalize subresource once the namespace is empty.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// namespaceUpdate is one write to a namespace, computed from its latest state.
type namespaceUpdate func(ctx context.Context, ns *api.Namespace) (*api.Namespace, error)

// retryOnConflict runs update and, while the apiserver answers Conflict
// (another writer — the other leader, a user — got there first), reads the
// namespace again and retries. It refuses to carry on if the namespace was
// deleted and re-created meanwhile (its UID changed). This is upstream's
// retryOnConflictError.
func (c *Controller) retryOnConflict(ctx context.Context, ns *api.Namespace, update namespaceUpdate) (*api.Namespace, error) {
	for {
		result, err := update(ctx, ns)
		if err == nil || !apierrors.IsConflict(err) {
			return result, err
		}
		latest, err := c.client.Namespaces().Get(ctx, ns.Name, client.GetOptions{})
		if err != nil {
			return nil, err
		}
		if latest.UID != ns.UID {
			return nil, fmt.Errorf("namespace %s: uid changed from %s to %s across retries", ns.Name, ns.UID, latest.UID)
		}
		ns = latest
	}
}

// ensureTerminating sets status.phase Terminating on a namespace marked for
// deletion. kplane's apiserver already sets it when it marks the
// namespace, so this usually writes nothing; it matters for a namespace
// whose status something else rewrote (upstream keeps the same safeguard).
func (c *Controller) ensureTerminating(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	if ns.DeletionTimestamp == nil || ns.Status.Phase == api.NamespaceTerminating {
		return ns, nil
	}
	next := api.DeepCopy(ns)
	next.Status.Phase = api.NamespaceTerminating
	updated, err := c.client.Namespaces().UpdateStatus(ctx, next, client.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("set namespace %s Terminating: %w", ns.Name, err)
	}
	return updated, nil
}

// withoutFinalizer returns finalizers without token, deduplicated and
// sorted, as upstream builds the finalize request from a string set.
func withoutFinalizer(finalizers []string, token string) []string {
	out := []string{}
	for _, f := range finalizers {
		if f != token && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// finalize removes the "kubernetes" finalizer from ns.spec.finalizers by a
// PUT to namespaces/{name}/finalize, the only way to change them. The
// request carries ns's resourceVersion, so a stale view gets a Conflict.
//
// When this leaves no spec.finalizers and no metadata.finalizers, the
// apiserver deletes the namespace in the same write (its update path
// removes an object marked for deletion once nothing holds it), so the
// controller issues no DELETE of its own: upstream's apiserver does the
// same (ShouldDeleteNamespaceDuringUpdate) and its controller stopped
// deleting namespaces itself long ago. The namespace may be gone already
// (another leader finished first): that is success.
func (c *Controller) finalize(ctx context.Context, ns *api.Namespace) (*api.Namespace, error) {
	next := api.DeepCopy(ns)
	next.Spec.Finalizers = withoutFinalizer(ns.Spec.Finalizers, api.FinalizerKubernetes)
	body, err := json.Marshal(next)
	if err != nil {
		return nil, fmt.Errorf("encode namespace %s: %w", ns.Name, err)
	}
	// The client has no typed Finalize; the raw request is the same PUT
	// client-go's NamespaceInterface.Finalize sends.
	path := "/api/v1/namespaces/" + url.PathEscape(ns.Name) + "/finalize"
	_, respBody, err := c.client.Do(ctx, http.MethodPut, path, body, nil)
	if apierrors.IsNotFound(err) {
		return ns, nil
	}
	if err != nil {
		return nil, err
	}
	var result api.Namespace
	if err := json.Unmarshal(respBody, &result); err != nil {
		return nil, fmt.Errorf("decode finalize response for namespace %s: %w", ns.Name, err)
	}
	return &result, nil
}
