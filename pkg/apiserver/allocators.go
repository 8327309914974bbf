package apiserver

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
)

// Service addresses. ClusterIPs come from 10.96.0.0/12 (10.96.0.1 is the
// `kubernetes` service) and node ports from 30000–32767, as on a default
// cluster. These are labels in kplane: nothing ever dials them.
const (
	serviceCIDR       = "10.96.0.0/12"
	kubernetesService = "10.96.0.1"
	nodePortMin       = 30000
	nodePortMax       = 32767
)

// allocators hand out ClusterIPs and node ports. The allocation state is
// rebuilt from the stored Services at start-up and kept in memory, which is
// correct for one apiserver per etcd (upstream keeps a bitmap in etcd and a
// repair loop so several apiservers can share a range).
type allocators struct {
	mu        sync.Mutex
	ipNet     *net.IPNet
	usedIPs   map[string]bool
	usedPorts map[int32]bool
}

func (s *Server) newAllocators() (*allocators, error) {
	_, ipNet, _ := net.ParseCIDR(serviceCIDR)
	a := &allocators{ipNet: ipNet, usedIPs: map[string]bool{}, usedPorts: map[int32]bool{}}
	svcRes := s.reg.byPluralAny["services"]
	entries, _, err := s.caches[svcRes].List(context.Background(), svcRes.keyPrefix(""), 1)
	if err != nil {
		return nil, fmt.Errorf("load services for IP allocation: %w", err)
	}
	for _, e := range entries {
		svc := e.Object.(*storedObject).obj.(*api.Service)
		for _, ip := range svc.Spec.ClusterIPs {
			a.usedIPs[ip] = true
		}
		if svc.Spec.ClusterIP != "" {
			a.usedIPs[svc.Spec.ClusterIP] = true
		}
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				a.usedPorts[p.NodePort] = true
			}
		}
	}
	return a, nil
}

// ipAt returns the address at offset within the range.
func (a *allocators) ipAt(offset uint32) string {
	base := binary.BigEndian.Uint32(a.ipNet.IP.To4())
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, base+offset)
	return ip.String()
}

func (a *allocators) rangeSize() uint32 {
	ones, bits := a.ipNet.Mask.Size()
	return 1 << uint(bits-ones)
}

// allocateIP picks a free address at random (skipping the network and
// broadcast addresses), or reserves a requested one.
func (a *allocators) allocateIP(requested string) (string, error) {
	if requested != "" {
		ip := net.ParseIP(requested)
		if ip == nil || !a.ipNet.Contains(ip) {
			return "", fmt.Errorf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s", requested, serviceCIDR)
		}
		if a.usedIPs[ip.String()] {
			return "", fmt.Errorf("failed to allocate IP %s: provided IP is already allocated", requested)
		}
		a.usedIPs[ip.String()] = true
		return ip.String(), nil
	}
	size := a.rangeSize()
	for i := 0; i < 64; i++ {
		ip := a.ipAt(2 + rand.Uint32N(size-3))
		if !a.usedIPs[ip] {
			a.usedIPs[ip] = true
			return ip, nil
		}
	}
	for offset := uint32(2); offset < size-1; offset++ {
		if ip := a.ipAt(offset); !a.usedIPs[ip] {
			a.usedIPs[ip] = true
			return ip, nil
		}
	}
	return "", fmt.Errorf("range is full")
}

// allocatePort picks a free node port at random, or reserves a requested one.
func (a *allocators) allocatePort(requested int32) (int32, error) {
	if requested != 0 {
		if requested < nodePortMin || requested > nodePortMax {
			return 0, fmt.Errorf("provided port is not in the valid range. The range of valid ports is %d-%d", nodePortMin, nodePortMax)
		}
		if a.usedPorts[requested] {
			return 0, fmt.Errorf("provided port is already allocated")
		}
		a.usedPorts[requested] = true
		return requested, nil
	}
	for i := 0; i < 2*(nodePortMax-nodePortMin+1); i++ {
		p := int32(nodePortMin + rand.IntN(nodePortMax-nodePortMin+1))
		if !a.usedPorts[p] {
			a.usedPorts[p] = true
			return p, nil
		}
	}
	return 0, fmt.Errorf("range is full")
}

// admitService gives a Service its ClusterIP and node ports. On update the
// existing ones are kept (they are immutable). The returned release undoes
// this call's allocations.
func (a *allocators) admitService(svc, old *api.Service, dryRun bool) (func(), error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var newIPs []string
	var newPorts []int32
	// undo forgets this call's allocations; the caller holds a.mu.
	undo := func() {
		for _, ip := range newIPs {
			delete(a.usedIPs, ip)
		}
		for _, p := range newPorts {
			delete(a.usedPorts, p)
		}
	}
	fail := func(field string, value any, err error) (func(), error) {
		undo()
		return func() {}, apierrors.NewInvalid("Service", "", svc.Name, apierrors.FieldErrorList{apierrors.Invalid(field, value, err.Error())})
	}

	// ClusterIP.
	switch {
	case svc.Spec.Type == api.ServiceTypeExternalName:
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "", nil
	case old != nil && old.Spec.ClusterIP != "" && (svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == old.Spec.ClusterIP):
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = old.Spec.ClusterIP, old.Spec.ClusterIPs
	case svc.Spec.ClusterIP == api.ClusterIPNone:
		svc.Spec.ClusterIPs = []string{api.ClusterIPNone}
	case old != nil && old.Spec.ClusterIP != "" && svc.Spec.ClusterIP != old.Spec.ClusterIP:
		// Validation reports the change of an immutable field.
	default:
		ip, err := a.allocateIP(svc.Spec.ClusterIP)
		if err != nil {
			return fail("spec.clusterIPs", []string{svc.Spec.ClusterIP}, err)
		}
		if !dryRun {
			newIPs = append(newIPs, ip)
		} else {
			delete(a.usedIPs, ip)
		}
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = ip, []string{ip}
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

	// Node ports, for NodePort and LoadBalancer services.
	needsNodePorts := svc.Spec.Type == api.ServiceTypeNodePort || svc.Spec.Type == api.ServiceTypeLoadBalancer
	oldPorts := map[int32]bool{}
	if old != nil {
		for _, p := range old.Spec.Ports {
			if p.NodePort != 0 {
				oldPorts[p.NodePort] = true
			}
		}
	}
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
		port, err := a.allocatePort(p.NodePort)
		if err != nil {
			return fail(fmt.Sprintf("spec.ports[%d].nodePort", i), p.NodePort, err)
		}
		if !dryRun {
			newPorts = append(newPorts, port)
		} else {
			delete(a.usedPorts, port)
		}
		p.NodePort = port
	}
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		undo()
	}, nil
}

// releaseService gives back what a deleted (or changed) Service held and
// the new version no longer uses.
func (a *allocators) releaseService(svc, keep *api.Service) {
	a.mu.Lock()
	defer a.mu.Unlock()
	kept := map[string]bool{}
	keptPorts := map[int32]bool{}
	if keep != nil {
		for _, ip := range keep.Spec.ClusterIPs {
			kept[ip] = true
		}
		kept[keep.Spec.ClusterIP] = true
		for _, p := range keep.Spec.Ports {
			keptPorts[p.NodePort] = true
		}
	}
	for _, ip := range append([]string{svc.Spec.ClusterIP}, svc.Spec.ClusterIPs...) {
		if ip != "" && ip != api.ClusterIPNone && !kept[ip] {
			delete(a.usedIPs, ip)
		}
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 && !keptPorts[p.NodePort] {
			delete(a.usedPorts, p.NodePort)
		}
	}
}
