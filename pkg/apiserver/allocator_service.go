package apiserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/store"
)

// serviceAllocators hand out ClusterIPs and node ports from two bitmaps in
// etcd (allocator_range.go), so that every apiserver on one etcd draws from
// the same ranges and none hands out what another holds: upstream's
// pkg/registry/core/service/storage/alloc.go over its ipallocator and
// portallocator. A Service costs one compare-and-swap write per range it
// takes from (its node ports go in one write), and one more per range when
// it is deleted or its write fails. The repair pass (allocator_repair.go)
// mends what a crash between the two steps leaves behind.
type serviceAllocators struct {
	ips   *serviceIPRange
	ports *nodePortRange
	log   *slog.Logger
}

// newServiceAllocators returns the allocators over st's ranges.
func newServiceAllocators(st store.Interface, log *slog.Logger) *serviceAllocators {
	return &serviceAllocators{ips: newServiceIPRange(st), ports: newNodePortRange(st), log: log}
}

// releaseTimeout bounds a release that runs after the request is answered
// (its context may be gone); a release that fails leaves a leak the
// repair pass frees later.
const releaseTimeout = 10 * time.Second

// admitService gives a Service its ClusterIP and node ports. On update the
// existing ones are kept (they are immutable). The returned release undoes
// this call's allocations. A dry run checks requested values against the
// ranges and picks free ones but writes nothing.
func (a *serviceAllocators) admitService(ctx context.Context, svc, old *api.Service, dryRun bool) (func(), error) {
	noop := func() {}
	ipOffsets, err := a.admitClusterIP(ctx, svc, old, dryRun)
	if err != nil {
		return noop, err
	}
	portOffsets, err := a.admitNodePorts(ctx, svc, old, dryRun)
	if err != nil {
		a.release(a.ips.shared, ipOffsets)
		return noop, err
	}
	return func() {
		a.release(a.ips.shared, ipOffsets)
		a.release(a.ports.shared, portOffsets)
	}, nil
}

// admitClusterIP sets the Service's ClusterIP and returns the offset it
// newly allocated (none for a dry run, a kept address, a headless or
// ExternalName Service).
func (a *serviceAllocators) admitClusterIP(ctx context.Context, svc, old *api.Service, dryRun bool) ([]int, error) {
	var allocated []int
	switch {
	case svc.Spec.Type == api.ServiceTypeExternalName:
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "", nil
	case old != nil && old.Spec.ClusterIP != "" && (svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == old.Spec.ClusterIP):
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = old.Spec.ClusterIP, old.Spec.ClusterIPs
	case svc.Spec.ClusterIP == api.ClusterIPNone:
		svc.Spec.ClusterIPs = []string{api.ClusterIPNone}
	case old != nil && old.Spec.ClusterIP != "" && svc.Spec.ClusterIP != old.Spec.ClusterIP:
		// Validation reports the change of an immutable field.
	case svc.Spec.ClusterIP != "":
		requested := svc.Spec.ClusterIP
		invalid := func(err error) error {
			return apierrors.NewInvalid("Service", "", svc.Name, apierrors.FieldErrorList{apierrors.Invalid("spec.clusterIPs",
				[]string{requested}, fmt.Sprintf("failed to allocate IP %s: %v", requested, err))})
		}
		ip := net.ParseIP(requested)
		offset, ok := 0, false
		if ip != nil {
			offset, ok = a.ips.offset(ip)
		}
		if !ok {
			return nil, invalid(a.ips.notInRange(requested))
		}
		_, err := allocateOffsets(ctx, a.ips.shared, []int{offset}, 0, dryRun)
		if errors.Is(err, errRangeAllocated) {
			return nil, invalid(errors.New("provided IP is already allocated"))
		}
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate IP %s: %w", requested, err))
		}
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = ip.String(), []string{ip.String()}
		if !dryRun {
			allocated = []int{offset}
		}
	default:
		picked, err := allocateOffsets(ctx, a.ips.shared, nil, 1, dryRun)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: %w", err))
		}
		ip := a.ips.ip(picked[0])
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = ip, []string{ip}
		if !dryRun {
			allocated = picked
		}
	}
	if svc.Spec.ClusterIP != "" && svc.Spec.Type != api.ServiceTypeExternalName {
		if len(svc.Spec.IPFamilies) == 0 {
			svc.Spec.IPFamilies = []api.IPFamily{api.IPv4Protocol}
		}
		if svc.Spec.IPFamilyPolicy == nil {
			single := api.IPFamilyPolicySingleStack
			svc.Spec.IPFamilyPolicy = &single
		}
	}
	return allocated, nil
}

// admitNodePorts sets the node port of every port of a NodePort or
// LoadBalancer Service (clearing them on other types) and returns the
// offsets it newly allocated. Ports the old Service held are kept; the
// rest are allocated together, in one write.
func (a *serviceAllocators) admitNodePorts(ctx context.Context, svc, old *api.Service, dryRun bool) ([]int, error) {
	needsNodePorts := svc.Spec.Type == api.ServiceTypeNodePort || svc.Spec.Type == api.ServiceTypeLoadBalancer
	oldPorts := map[int32]bool{}
	if old != nil {
		for _, p := range old.Spec.Ports {
			if p.NodePort != 0 {
				oldPorts[p.NodePort] = true
			}
		}
	}
	var requested []int          // offsets asked for by value
	requestedBy := map[int]int{} // offset → index of the port that asked
	var randomFor []int          // indexes of ports that get any free port
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		if !needsNodePorts {
			p.NodePort = 0
			continue
		}
		if p.NodePort != 0 && oldPorts[p.NodePort] {
			continue
		}
		if old != nil && p.NodePort == 0 {
			// Keep the port this service port had before.
			for _, op := range old.Spec.Ports {
				if op.Port == p.Port && op.Protocol == p.Protocol && op.NodePort != 0 {
					p.NodePort = op.NodePort
				}
			}
			if p.NodePort != 0 {
				continue
			}
		}
		if p.NodePort == 0 {
			randomFor = append(randomFor, i)
			continue
		}
		offset, ok := a.ports.offset(p.NodePort)
		if !ok {
			return nil, nodePortInvalid(svc, i, a.ports.notInRange())
		}
		if _, dup := requestedBy[offset]; !dup {
			// One port under two protocols is one allocation, as upstream.
			requested = append(requested, offset)
			requestedBy[offset] = i
		}
	}
	picked, err := allocateOffsets(ctx, a.ports.shared, requested, len(randomFor), dryRun)
	var taken errOffsetTaken
	switch {
	case errors.As(err, &taken):
		return nil, nodePortInvalid(svc, requestedBy[taken.offset], errors.New("provided port is already allocated"))
	case errors.Is(err, errRangeFull):
		return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
	case err != nil:
		return nil, apierrors.NewInternalError(fmt.Errorf("allocate node ports: %w", err))
	}
	for n, i := range randomFor {
		svc.Spec.Ports[i].NodePort = a.ports.port(picked[n])
	}
	if dryRun {
		return nil, nil
	}
	return append(requested, picked...), nil
}

// nodePortInvalid is the 422 upstream answers for a node port it refuses.
func nodePortInvalid(svc *api.Service, i int, err error) error {
	return apierrors.NewInvalid("Service", "", svc.Name, apierrors.FieldErrorList{
		apierrors.Invalid(fmt.Sprintf("spec.ports[%d].nodePort", i), svc.Spec.Ports[i].NodePort, err.Error())})
}

// releaseService gives back what a deleted (or changed) Service held and
// the new version (keep) no longer uses.
func (a *serviceAllocators) releaseService(svc, keep *api.Service) {
	keptIPs := map[string]bool{}
	keptPorts := map[int32]bool{}
	if keep != nil {
		for _, ip := range keep.Spec.ClusterIPs {
			keptIPs[ip] = true
		}
		keptIPs[keep.Spec.ClusterIP] = true
		for _, p := range keep.Spec.Ports {
			keptPorts[p.NodePort] = true
		}
	}
	var ipOffsets, portOffsets []int
	for _, ip := range serviceClusterIPs(svc) {
		if parsed := net.ParseIP(ip); parsed != nil && !keptIPs[ip] {
			if offset, ok := a.ips.offset(parsed); ok {
				ipOffsets = append(ipOffsets, offset)
			}
		}
	}
	for _, port := range serviceNodePorts(svc) {
		if offset, ok := a.ports.offset(port); ok && !keptPorts[port] {
			portOffsets = append(portOffsets, offset)
		}
	}
	a.release(a.ips.shared, ipOffsets)
	a.release(a.ports.shared, portOffsets)
}

// release clears offsets in r, logging a failure: the bits then stay set
// until the repair pass finds them leaked.
func (a *serviceAllocators) release(r *rangeAllocation, offsets []int) {
	if len(offsets) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := releaseOffsets(ctx, r, offsets); err != nil {
		a.log.Warn("release service allocations; the repair pass will free them", "range", r.key, "offsets", offsets, "err", err)
	}
}

// serviceClusterIPs lists the distinct ClusterIPs a Service holds.
func serviceClusterIPs(svc *api.Service) []string {
	var ips []string
	seen := map[string]bool{"": true, api.ClusterIPNone: true}
	for _, ip := range append([]string{svc.Spec.ClusterIP}, svc.Spec.ClusterIPs...) {
		if !seen[ip] {
			seen[ip] = true
			ips = append(ips, ip)
		}
	}
	return ips
}

// serviceNodePorts lists the distinct node ports a Service holds.
func serviceNodePorts(svc *api.Service) []int32 {
	var ports []int32
	seen := map[int32]bool{0: true}
	for _, p := range svc.Spec.Ports {
		if !seen[p.NodePort] {
			seen[p.NodePort] = true
			ports = append(ports, p.NodePort)
		}
	}
	return ports
}
