package servicelb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/cloudprovider"
	"kplane/pkg/informer"
)

// The Events the controller records on a Service, upstream's reasons and
// messages.
const (
	eventEnsuring       = "EnsuringLoadBalancer"
	eventEnsured        = "EnsuredLoadBalancer"
	eventDeleting       = "DeletingLoadBalancer"
	eventDeleted        = "DeletedLoadBalancer"
	eventUpdated        = "UpdatedLoadBalancer"
	eventSyncFailed     = "SyncLoadBalancerFailed"
	eventUpdateFailed   = "UpdateLoadBalancerFailed"
	eventNoNodes        = "UnAvailableLoadBalancer"
	messageNoNodes      = "There are no available nodes for LoadBalancer"
	messageUpdatedHosts = "Updated load balancer with new hosts"
)

// sync brings the load balancer of the Service named key in line with it:
// ensure one for a Service that wants one, delete it for one that holds the
// finalizer but no longer wants it. Anything else is not this
// controller's business.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := informer.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	svc, err := c.services.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		// Gone: with the finalizer it could only go after the cleanup
		// below, so there is no load balancer left to delete.
		c.decisions.Forget(key)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get service %s from cache: %w", key, err)
	}
	switch {
	case wantsLoadBalancer(svc) && !needsCleanup(svc):
		return c.ensure(ctx, svc)
	case hasCleanupFinalizer(svc):
		return c.cleanup(ctx, svc)
	case svc.Spec.Type == api.ServiceTypeLoadBalancer:
		c.recordOtherClass(svc)
	}
	return nil
}

// ensure gives svc its load balancer: the finalizer first, so that a
// deletion from now on waits for the cleanup, then the cloud's load
// balancer, then the address in the status.
func (c *Controller) ensure(ctx context.Context, svc *api.Service) error {
	nodes, err := c.nodes.List(nil)
	if err != nil {
		return fmt.Errorf("list nodes from cache: %w", err)
	}
	hosts := loadBalancerHosts(nodes)
	c.recordEnsure(svc, hosts)
	c.recorder.Event(svc, api.EventTypeNormal, eventEnsuring, "Ensuring load balancer")
	if !hasCleanupFinalizer(svc) {
		if err := c.patchFinalizers(ctx, svc, addFinalizerPatch()); err != nil {
			return c.syncFailed(svc, fmt.Errorf("failed to add load balancer cleanup finalizer: %w", err))
		}
	}
	if len(hosts) == 0 {
		c.recorder.Event(svc, api.EventTypeWarning, eventNoNodes, messageNoNodes)
	}
	status, err := c.balancer.EnsureLoadBalancer(ctx, c.clusterName, svc, hosts)
	if err != nil {
		return c.syncFailed(svc, fmt.Errorf("failed to ensure load balancer: %w", err))
	}
	c.recorder.Event(svc, api.EventTypeNormal, eventEnsured, "Ensured load balancer")
	c.log.Info("ensured load balancer", "service", keyOf(svc), "ingress", ingressIPs(status), "nodes", hostNames(hosts))
	return c.patchStatus(ctx, svc, *status)
}

// cleanup deletes svc's load balancer, then lets the Service go: the
// finalizer removed, the status cleared (unless the Service is being
// deleted, when there is nothing left to clear).
func (c *Controller) cleanup(ctx context.Context, svc *api.Service) error {
	_, exists, err := c.balancer.GetLoadBalancer(ctx, c.clusterName, svc)
	if err != nil {
		return c.syncFailed(svc, fmt.Errorf("failed to check if load balancer exists before cleanup: %w", err))
	}
	c.recordCleanup(svc, exists)
	if exists {
		c.recorder.Event(svc, api.EventTypeNormal, eventDeleting, "Deleting load balancer")
		if err := c.balancer.EnsureLoadBalancerDeleted(ctx, c.clusterName, svc); err != nil {
			return c.syncFailed(svc, fmt.Errorf("failed to delete load balancer: %w", err))
		}
	}
	if err := c.patchFinalizers(ctx, svc, removeFinalizerPatch()); err != nil && !apierrors.IsNotFound(err) {
		return c.syncFailed(svc, fmt.Errorf("failed to remove load balancer cleanup finalizer: %w", err))
	}
	c.recorder.Event(svc, api.EventTypeNormal, eventDeleted, "Deleted load balancer")
	c.log.Info("deleted load balancer", "service", keyOf(svc))
	if svc.DeletionTimestamp != nil {
		return nil
	}
	return c.patchStatus(ctx, svc, api.LoadBalancerStatus{})
}

// syncFailed records the SyncLoadBalancerFailed warning and returns err for
// a retry with back-off.
func (c *Controller) syncFailed(svc *api.Service, err error) error {
	c.recorder.Eventf(svc, api.EventTypeWarning, eventSyncFailed, "Error syncing load balancer: %v", err)
	return fmt.Errorf("service %s: %w", keyOf(svc), err)
}

// patchFinalizers applies a strategic merge patch to svc's finalizers.
func (c *Controller) patchFinalizers(ctx context.Context, svc *api.Service, patch []byte) error {
	_, err := c.client.Services(svc.Namespace).Patch(ctx, svc.Name, client.StrategicMergePatchType, patch, client.PatchOptions{})
	return err
}

// addFinalizerPatch adds the cleanup finalizer (finalizers merge as a set,
// so the Service's others stay).
func addFinalizerPatch() []byte {
	patch, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"finalizers": []string{cloudprovider.LoadBalancerCleanupFinalizer}},
	})
	return patch
}

// removeFinalizerPatch removes the cleanup finalizer and leaves the others.
func removeFinalizerPatch() []byte {
	patch, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"$deleteFromPrimitiveList/finalizers": []string{cloudprovider.LoadBalancerCleanupFinalizer}},
	})
	return patch
}

// patchStatus writes status.loadBalancer when it differs from what svc
// has. A Service gone meanwhile is no error: there is nothing to publish on.
func (c *Controller) patchStatus(ctx context.Context, svc *api.Service, status api.LoadBalancerStatus) error {
	if reflect.DeepEqual(normalized(svc.Status.LoadBalancer), normalized(status)) {
		return nil
	}
	ingress := any(status.Ingress)
	if len(status.Ingress) == 0 {
		ingress = nil // a merge patch's null deletes the field
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"loadBalancer": map[string]any{"ingress": ingress}}})
	if err != nil {
		return fmt.Errorf("encode status patch: %w", err)
	}
	_, err = c.client.Services(svc.Namespace).Patch(ctx, svc.Name, client.MergePatchType, patch, client.PatchOptions{}, "status")
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("service %s: update load balancer status: %w", keyOf(svc), err)
	}
	return nil
}

// normalized makes an empty ingress list and a missing one compare equal.
func normalized(s api.LoadBalancerStatus) api.LoadBalancerStatus {
	if len(s.Ingress) == 0 {
		s.Ingress = nil
	}
	return s
}

// ingressIPs lists the addresses of status, for logs and decisions.
func ingressIPs(status *api.LoadBalancerStatus) []string {
	var ips []string
	for _, in := range status.Ingress {
		ips = append(ips, in.IP)
	}
	return ips
}

// syncNodes points every load balancer at the current node set when it
// changed since the last node sync (upstream's nodeSyncInternal), with an
// UpdatedLoadBalancer Event on each Service. A failed update is retried
// with the whole set.
func (c *Controller) syncNodes(ctx context.Context, _ string) error {
	nodes, err := c.nodes.List(nil)
	if err != nil {
		return fmt.Errorf("list nodes from cache: %w", err)
	}
	hosts := loadBalancerHosts(nodes)
	names := hostNames(hosts)
	c.hostsMu.Lock()
	before := c.knownHosts
	c.hostsMu.Unlock()
	if before != nil && slices.Equal(before, names) {
		return nil
	}
	services, err := c.services.List(nil)
	if err != nil {
		return fmt.Errorf("list services from cache: %w", err)
	}
	var errs []error
	for _, svc := range services {
		if !wantsLoadBalancer(svc) || svc.DeletionTimestamp != nil {
			continue
		}
		if _, exists, err := c.balancer.GetLoadBalancer(ctx, c.clusterName, svc); err != nil || !exists {
			continue // not made yet: its own sync ensures it over the current nodes
		}
		c.recordNodes(svc, before, names)
		if err := c.balancer.UpdateLoadBalancer(ctx, c.clusterName, svc, hosts); err != nil {
			c.recorder.Eventf(svc, api.EventTypeWarning, eventUpdateFailed, "Error updating load balancer with new hosts %v: %v", names, err)
			errs = append(errs, fmt.Errorf("service %s: update load balancer hosts: %w", keyOf(svc), err))
			continue
		}
		if len(hosts) == 0 {
			c.recorder.Event(svc, api.EventTypeWarning, eventNoNodes, messageNoNodes)
		} else {
			c.recorder.Event(svc, api.EventTypeNormal, eventUpdated, messageUpdatedHosts)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	c.hostsMu.Lock()
	c.knownHosts = names
	c.hostsMu.Unlock()
	return nil
}
