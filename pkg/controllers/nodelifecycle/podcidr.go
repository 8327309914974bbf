package nodelifecycle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"sync"

	"kplane/pkg/api"
)

// DefaultClusterCIDR is the range node pod ranges are cut from, as kubeadm
// and flannel set kube-controller-manager's --cluster-cidr up.
var DefaultClusterCIDR = netip.MustParsePrefix("10.244.0.0/16")

// DefaultNodeCIDRMaskSize is the prefix length of each node's range
// (--node-cidr-mask-size): node N gets 10.244.N.0/24, and a cluster has
// room for 256 nodes.
const DefaultNodeCIDRMaskSize = 24

// errCIDRRangeFull says that every block of the cluster CIDR is taken.
var errCIDRRangeFull = errors.New("no remaining CIDRs in the cluster CIDR")

// cidrAllocator hands out pod ranges to nodes that have none, as upstream's
// node-ipam-controller (its RangeAllocator) does. `ctl up` gives each
// kubelet its range with --pod-cidr, so on a kplane cluster this only
// serves nodes that registered without one (a kubelet started by hand, a
// Node created with kubectl).
//
// The blocks in use are read from the nodes in the cache every time, plus
// the blocks this controller chose but whose write the cache has not shown
// yet (pending), so that two nodes synced at once by two workers never get
// the same block.
type cidrAllocator struct {
	clusterCIDR netip.Prefix
	maskSize    int

	mu sync.Mutex
	// pending maps a node name to the block index chosen for it and not
	// yet seen on the Node in the cache.
	pending map[string]int
	// parsed remembers indexOf's answer for each range string seen on a
	// node. allocate reads every node's range on every call, and a cluster
	// with more nodes than blocks retries its unlucky nodes with back-off:
	// parsing 1 000 strings per retry was 30 % of the controller-manager's
	// CPU while 1 000 nodes waited. Cleared when it outgrows twice the
	// blocks, so hand-set ranges cannot grow it without bound.
	parsed map[string]parsedCIDR
}

// parsedCIDR is indexOf's answer for one range string.
type parsedCIDR struct {
	index int
	ours  bool
}

func newCIDRAllocator(clusterCIDR netip.Prefix, maskSize int) (*cidrAllocator, error) {
	clusterCIDR = clusterCIDR.Masked()
	if !clusterCIDR.Addr().Is4() || maskSize < clusterCIDR.Bits() || maskSize > 30 || maskSize-clusterCIDR.Bits() > 16 {
		return nil, fmt.Errorf("cluster CIDR %s with node mask /%d: need IPv4, a node mask between /%d and /30, and at most 65536 blocks",
			clusterCIDR, maskSize, clusterCIDR.Bits())
	}
	return &cidrAllocator{clusterCIDR: clusterCIDR, maskSize: maskSize, pending: map[string]int{}, parsed: map[string]parsedCIDR{}}, nil
}

// blocks is how many node ranges the cluster CIDR holds.
func (a *cidrAllocator) blocks() int { return 1 << (a.maskSize - a.clusterCIDR.Bits()) }

// block returns the i-th node range: 10.244.<i>.0/24 by default.
func (a *cidrAllocator) block(i int) netip.Prefix {
	base := a.clusterCIDR.Addr().As4()
	n := binary.BigEndian.Uint32(base[:]) + uint32(i)<<(32-a.maskSize)
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], n)
	return netip.PrefixFrom(netip.AddrFrom4(b), a.maskSize)
}

// cachedIndexOf is indexOf, remembered per string; a.mu is held.
func (a *cidrAllocator) cachedIndexOf(cidr string) (int, bool) {
	if cidr == "" {
		return 0, false
	}
	if p, ok := a.parsed[cidr]; ok {
		return p.index, p.ours
	}
	if len(a.parsed) >= 2*a.blocks() {
		clear(a.parsed)
	}
	i, ok := a.indexOf(cidr)
	a.parsed[cidr] = parsedCIDR{index: i, ours: ok}
	return i, ok
}

// indexOf returns which block cidr is, or false when it is not one of the
// cluster CIDR's blocks (a range given by hand elsewhere is simply not
// ours to track; one that overlaps ours by a different size is treated as
// using the block its address falls in).
func (a *cidrAllocator) indexOf(cidr string) (int, bool) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() || !a.clusterCIDR.Contains(p.Addr()) {
		return 0, false
	}
	addr, base := p.Addr().As4(), a.clusterCIDR.Addr().As4()
	offset := binary.BigEndian.Uint32(addr[:]) - binary.BigEndian.Uint32(base[:])
	return int(offset >> (32 - a.maskSize)), true
}

// allocate chooses the lowest free block for the node called name, given
// every node in the cache. Calling it again for the same node before the
// cache shows the write returns the same block.
func (a *cidrAllocator) allocate(name string, nodes []*api.Node) (netip.Prefix, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if i, ok := a.pending[name]; ok {
		return a.block(i), nil
	}
	used := map[int]bool{}
	for _, n := range nodes {
		if i, ok := a.cachedIndexOf(n.Spec.PodCIDR); ok {
			used[i] = true
		}
		for _, cidr := range n.Spec.PodCIDRs {
			if i, ok := a.cachedIndexOf(cidr); ok {
				used[i] = true
			}
		}
	}
	for node, i := range a.pending {
		if node != name {
			used[i] = true
		}
	}
	for i := range a.blocks() {
		if !used[i] {
			a.pending[name] = i
			return a.block(i), nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("allocate a pod CIDR for node %s from %s: %w", name, a.clusterCIDR, errCIDRRangeFull)
}

// release forgets the pending choice for a node once the cache shows its
// range (or the node is gone).
func (a *cidrAllocator) release(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.pending, name)
}
