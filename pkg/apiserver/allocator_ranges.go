package apiserver

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"strconv"

	"kplane/pkg/store"
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

// serviceIPRange maps ClusterIPs onto offsets of a shared bitmap, as
// upstream's ipallocator.Range: offset 0 is the first address after the
// network address, and neither the network nor the broadcast address can
// be allocated.
type serviceIPRange struct {
	ipNet  *net.IPNet
	base   uint32 // the network address
	shared *rangeAllocation
}

// newServiceIPRange returns the ClusterIP range of serviceCIDR in st.
func newServiceIPRange(st store.Interface) *serviceIPRange {
	_, ipNet, _ := net.ParseCIDR(serviceCIDR)
	ones, bits := ipNet.Mask.Size()
	size := 1<<uint(bits-ones) - 2
	return &serviceIPRange{ipNet: ipNet, base: binary.BigEndian.Uint32(ipNet.IP.To4()),
		shared: newRangeAllocation(st, serviceIPRangeKey, ipNet.String(), size, ipStaticBand(size))}
}

// offset returns ip's offset, or false outside the allocatable addresses.
func (r *serviceIPRange) offset(ip net.IP) (int, bool) {
	v4 := ip.To4()
	if v4 == nil || !r.ipNet.Contains(v4) {
		return 0, false
	}
	offset := int(binary.BigEndian.Uint32(v4)-r.base) - 1
	return offset, offset >= 0 && offset < r.shared.size
}

// ip returns the address at offset.
func (r *serviceIPRange) ip(offset int) string {
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, r.base+1+uint32(offset))
	return ip.String()
}

// notInRange is upstream's ipallocator.ErrNotInRange message.
func (r *serviceIPRange) notInRange(ip string) error {
	return fmt.Errorf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s", ip, serviceCIDR)
}

// nodePortRange maps node ports onto offsets of a shared bitmap: offset 0
// is nodePortMin (upstream's portallocator).
type nodePortRange struct {
	shared *rangeAllocation
}

// newNodePortRange returns the node port range in st.
func newNodePortRange(st store.Interface) *nodePortRange {
	spec := strconv.Itoa(nodePortMin) + "-" + strconv.Itoa(nodePortMax)
	size := nodePortMax - nodePortMin + 1
	return &nodePortRange{shared: newRangeAllocation(st, serviceNodePortRangeKey, spec, size, portStaticBand(size))}
}

// offset returns port's offset, or false outside the range.
func (r *nodePortRange) offset(port int32) (int, bool) {
	return int(port) - nodePortMin, port >= nodePortMin && port <= nodePortMax
}

// port returns the node port at offset.
func (r *nodePortRange) port(offset int) int32 { return int32(nodePortMin + offset) }

// notInRange is upstream's portallocator.ErrNotInRange message.
func (r *nodePortRange) notInRange() error {
	return fmt.Errorf("provided port is not in the valid range. The range of valid ports is %d-%d", nodePortMin, nodePortMax)
}

// allocateOffsets sets the bits of the requested offsets (all must be
// free) and of one random free offset per count of random, in one
// compare-and-swap write, and returns the random ones. With dryRun nothing
// is written: the requested offsets are checked against the stored bitmap
// and random ones chosen from it. requested offsets that are taken come
// back in an errOffsetTaken.
func allocateOffsets(ctx context.Context, r *rangeAllocation, requested []int, random int, dryRun bool) ([]int, error) {
	var picked []int
	change := func(bits *allocationBitmap) error {
		picked = picked[:0]
		for _, offset := range requested {
			if bits.has(offset) {
				return errOffsetTaken{offset}
			}
			bits.set(offset)
		}
		for i := 0; i < random; i++ {
			offset, ok := bits.randomFree(r.staticBand)
			if !ok {
				return errRangeFull
			}
			bits.set(offset)
			picked = append(picked, offset)
		}
		return nil
	}
	if len(requested) == 0 && random == 0 {
		return nil, nil
	}
	var err error
	if dryRun {
		err = r.peek(ctx, change)
	} else {
		err = r.update(ctx, change)
	}
	return picked, err
}

// releaseOffsets clears the bits of offsets in one compare-and-swap write.
func releaseOffsets(ctx context.Context, r *rangeAllocation, offsets []int) error {
	if len(offsets) == 0 {
		return nil
	}
	return r.update(ctx, func(bits *allocationBitmap) error {
		for _, offset := range offsets {
			bits.clear(offset)
		}
		return nil
	})
}

// errOffsetTaken says which requested offset is already allocated.
type errOffsetTaken struct{ offset int }

func (e errOffsetTaken) Error() string { return errRangeAllocated.Error() }

// Is makes errors.Is(err, errRangeAllocated) hold.
func (e errOffsetTaken) Is(target error) bool { return target == errRangeAllocated }
