package kubelet

// This file is the node's heartbeat: a Lease named after the node in
// kube-node-lease whose renewTime the kubelet moves forward every 10 s, as
// upstream's nodelease controller does. Renewing a small Lease is much
// cheaper than rewriting the whole Node, which is why the node lifecycle
// controller judges a node's health by its Lease: no renewal for
// node-monitor-grace-period (50 s) and the node becomes NotReady.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// NodeLeaseNamespace is where node Leases live.
const NodeLeaseNamespace = "kube-node-lease"

// leaseJitter spreads renewals of many nodes apart (upstream: 0.04).
const leaseJitter = 0.04

// runLease renews the node's Lease every NodeLeaseRenewInterval until ctx
// ends. A failed renewal is retried sooner, 200 ms doubling up to the
// interval, as upstream's controller does. Nothing is done at shutdown: a
// kubelet that stops simply stops renewing, and that is the signal.
func (k *Kubelet) runLease(ctx context.Context) {
	var latest *api.Lease
	retry := 200 * time.Millisecond
	for {
		if !k.heartbeat.wait(ctx) { // paused by the debug API (pause.go)
			return
		}
		var wait time.Duration
		lease, err := k.renewLease(ctx, latest)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			k.log.Warn("could not renew node lease", "err", err, "retryIn", retry)
			latest, wait = nil, retry
			retry = min(2*retry, k.opts.NodeLeaseRenewInterval)
		} else {
			latest, retry = lease, 200*time.Millisecond
			interval := k.opts.NodeLeaseRenewInterval
			wait = interval + time.Duration(rand.Float64()*leaseJitter*float64(interval))
		}
		select {
		case <-ctx.Done():
			return
		case <-k.clock.After(wait):
		}
	}
}

// renewLease moves the Lease's renewTime to now. It updates the last Lease
// it wrote when it has one (no read needed), and otherwise reads the Lease
// or creates it.
func (k *Kubelet) renewLease(ctx context.Context, latest *api.Lease) (*api.Lease, error) {
	leases := k.client.Leases(NodeLeaseNamespace)
	if latest != nil {
		lease := api.DeepCopy(latest)
		k.fillLease(lease)
		updated, err := leases.Update(ctx, lease, client.UpdateOptions{})
		if err == nil {
			return updated, nil
		}
		if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("renew lease %s: %w", k.nodeName, err)
		}
	}
	lease, err := leases.Get(ctx, k.nodeName, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		lease = &api.Lease{ObjectMeta: api.ObjectMeta{Name: k.nodeName, Namespace: NodeLeaseNamespace}}
		k.fillLease(lease)
		created, err := leases.Create(ctx, lease, client.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("create lease %s: %w", k.nodeName, err)
		}
		return created, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lease %s: %w", k.nodeName, err)
	}
	k.fillLease(lease)
	updated, err := leases.Update(ctx, lease, client.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("renew lease %s: %w", k.nodeName, err)
	}
	return updated, nil
}

// fillLease sets what the kubelet owns in its Lease: holder, duration,
// renewTime, and an ownerReference to the Node so the garbage collector
// removes the Lease with the Node.
func (k *Kubelet) fillLease(lease *api.Lease) {
	holder := k.nodeName
	duration := k.opts.NodeLeaseDurationSeconds
	now := api.MicroTime{Time: k.clock.Now().UTC().Truncate(time.Microsecond)}
	lease.Spec.HolderIdentity = &holder
	lease.Spec.LeaseDurationSeconds = &duration
	lease.Spec.RenewTime = &now
	k.mu.Lock()
	uid := k.nodeUID
	k.mu.Unlock()
	if uid != "" {
		lease.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: k.nodeName, UID: uid}}
	}
}
