package kubelet

// This file hands out pod IPs from the node's podCIDR, as a CNI plugin's
// host-local IPAM does upstream. Nothing is routed: a kplane pod IP is a
// label that Services, Endpoints and DNS can show, never a destination.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"net/netip"
	"sync"
)

// errRangeFull is returned when every address of the range is in use.
var errRangeFull = errors.New("no IP addresses available in range set")

// ipam allocates IPv4 addresses of one pod CIDR to pods, one per pod UID.
//
// Like host-local IPAM it skips the network address, the gateway (.1) and
// the broadcast address, and it allocates round-robin: the search for a
// free address starts after the last one handed out, so an address released
// by a deleted pod is reused only after the rest of the range has been.
type ipam struct {
	mu     sync.Mutex
	prefix netip.Prefix
	// first and last bound the usable addresses.
	first, last netip.Addr
	// next is where the next search starts.
	next netip.Addr
	// byIP and byPod are inverse maps: an address is in byIP iff its owner's
	// UID maps to it in byPod.
	byIP  map[netip.Addr]string
	byPod map[string]netip.Addr
}

// newIPAM returns an allocator for prefix, an IPv4 range of at least four
// addresses.
func newIPAM(prefix netip.Prefix) (*ipam, error) {
	prefix = prefix.Masked()
	if !prefix.Addr().Is4() || prefix.Bits() > 30 {
		return nil, fmt.Errorf("pod CIDR %s: need an IPv4 range of at least 4 addresses", prefix)
	}
	network := prefix.Addr()
	size := uint32(1) << (32 - prefix.Bits())
	first := addrAdd(network, 2) // .0 is the network, .1 the gateway
	last := addrAdd(network, size-2)
	return &ipam{prefix: prefix, first: first, last: last, next: first,
		byIP: map[netip.Addr]string{}, byPod: map[string]netip.Addr{}}, nil
}

// Allocate returns podUID's address, choosing a free one the first time.
func (a *ipam) Allocate(podUID string) (netip.Addr, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ip, ok := a.byPod[podUID]; ok {
		return ip, nil
	}
	ip := a.next
	for {
		if _, used := a.byIP[ip]; !used {
			a.byIP[ip], a.byPod[podUID] = podUID, ip
			a.next = a.after(ip)
			return ip, nil
		}
		ip = a.after(ip)
		if ip == a.next {
			return netip.Addr{}, fmt.Errorf("allocate IP for pod %s from %s: %w", podUID, a.prefix, errRangeFull)
		}
	}
}

// Reserve records that podUID already holds ip (a pod a previous kubelet
// process started). It reports false when ip is outside the range or taken
// by another pod; the pod then keeps its address anyway, unmanaged.
func (a *ipam) Reserve(podUID string, ip netip.Addr) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.prefix.Contains(ip) || ip.Less(a.first) || a.last.Less(ip) {
		return false
	}
	if owner, used := a.byIP[ip]; used {
		return owner == podUID
	}
	if old, ok := a.byPod[podUID]; ok {
		delete(a.byIP, old)
	}
	a.byIP[ip], a.byPod[podUID] = podUID, ip
	return true
}

// Release frees podUID's address, if it has one.
func (a *ipam) Release(podUID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ip, ok := a.byPod[podUID]; ok {
		delete(a.byPod, podUID)
		delete(a.byIP, ip)
	}
}

// InUse is how many addresses are allocated.
func (a *ipam) InUse() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.byIP)
}

// after is the usable address following ip, wrapping around.
func (a *ipam) after(ip netip.Addr) netip.Addr {
	if ip == a.last {
		return a.first
	}
	return ip.Next()
}

// addrAdd returns the IPv4 address n after ip.
func addrAdd(ip netip.Addr, n uint32) netip.Addr {
	b := ip.As4()
	binary.BigEndian.PutUint32(b[:], binary.BigEndian.Uint32(b[:])+n)
	return netip.AddrFrom4(b)
}

// nthBlock returns the block i blocks after base, of the same size: how
// --pod-cidr 10.244.1.0/24 becomes 10.244.2.0/24 for the second hollow node.
func nthBlock(base netip.Prefix, i int) netip.Prefix {
	base = base.Masked()
	size := uint32(1) << (32 - base.Bits())
	return netip.PrefixFrom(addrAdd(base.Addr(), size*uint32(i)), base.Bits())
}

// fallbackPodCIDR is the /24 a node uses when neither its Node object nor
// --pod-cidr names a range: one of the 16 384 /24s of 10.64.0.0/10 (a range
// Kubernetes does not use by default), chosen by a hash of the node's name
// so that it is stable across restarts.
func fallbackPodCIDR(nodeName string) netip.Prefix {
	h := fnv.New32a()
	h.Write([]byte(nodeName))
	block := h.Sum32() % (1 << 14)
	return netip.PrefixFrom(addrAdd(netip.AddrFrom4([4]byte{10, 64, 0, 0}), block<<8), 24)
}
