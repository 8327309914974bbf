package apiserver

import (
	"math/big"
	"math/rand/v2"
)

// allocationBitmap is the set of taken offsets of one range (ClusterIPs or
// node ports): bit i set means offset i is allocated. It is the value a
// RangeAllocation object carries in its data field, encoded as upstream's
// allocator.AllocationBitmap encodes it: the big-endian bytes of a big
// integer whose bit i is offset i (pkg/registry/core/service/allocator/
// bitmap.go). A bitmap is not safe for concurrent use; rangeAllocation
// guards it.
type allocationBitmap struct {
	// size is the number of offsets: 0 … size-1.
	size int
	bits big.Int
}

// newAllocationBitmap returns an empty bitmap of size offsets.
func newAllocationBitmap(size int) *allocationBitmap {
	return &allocationBitmap{size: size}
}

// bitmapFromData restores a bitmap from a RangeAllocation's data; bits at
// or past size are dropped (the range shrank).
func bitmapFromData(size int, data []byte) *allocationBitmap {
	b := newAllocationBitmap(size)
	b.bits.SetBytes(data)
	for i := b.bits.BitLen() - 1; i >= size; i-- {
		b.bits.SetBit(&b.bits, i, 0)
	}
	return b
}

// data is the bitmap as a RangeAllocation stores it.
func (b *allocationBitmap) data() []byte { return b.bits.Bytes() }

// clone returns an independent copy.
func (b *allocationBitmap) clone() *allocationBitmap {
	c := newAllocationBitmap(b.size)
	c.bits.Set(&b.bits)
	return c
}

// has reports whether offset is allocated.
func (b *allocationBitmap) has(offset int) bool {
	return offset >= 0 && offset < b.size && b.bits.Bit(offset) == 1
}

// set marks offset allocated.
func (b *allocationBitmap) set(offset int) { b.bits.SetBit(&b.bits, offset, 1) }

// clear marks offset free.
func (b *allocationBitmap) clear(offset int) { b.bits.SetBit(&b.bits, offset, 0) }

// used counts the allocated offsets.
func (b *allocationBitmap) used() int {
	n := 0
	for _, word := range b.bits.Bits() {
		for w := uint64(word); w != 0; w &= w - 1 {
			n++
		}
	}
	return n
}

// randomFree returns a free offset, or false when the range is full. It
// looks at a random start and scans forward, wrapping around (upstream's
// random scan strategy), first above the static band (offsets below
// staticBand), then in it: upstream keeps the low end of each range for
// values users ask for by number (KEP-3070 for ClusterIPs, KEP-3668 for
// node ports), so that a random pick rarely takes the one a manifest
// names.
func (b *allocationBitmap) randomFree(staticBand int) (int, bool) {
	if offset, ok := b.randomFreeIn(staticBand, b.size); ok {
		return offset, true
	}
	return b.randomFreeIn(0, min(staticBand, b.size))
}

// randomFreeIn scans [from, to) from a random start for a free offset.
func (b *allocationBitmap) randomFreeIn(from, to int) (int, bool) {
	n := to - from
	if n <= 0 {
		return 0, false
	}
	start := rand.IntN(n)
	for i := 0; i < n; i++ {
		offset := from + (start+i)%n
		if b.bits.Bit(offset) == 0 {
			return offset, true
		}
	}
	return 0, false
}

// staticBandSize is how many offsets at the low end of a range of size
// values random picks leave for last: size/step, at least 16 and at most
// limit, none for ranges of 16 or fewer (upstream's calculateRangeOffset,
// which has one such function per allocator). ClusterIPs use step 16 and
// limit 256 (ipStaticBand: 10.96.0.1–10.96.1.0 for 10.96.0.0/12), node
// ports step 32 and limit 128 (portStaticBand: 30000–30085 for
// 30000–32767).
func staticBandSize(size, step, limit int) int {
	if size <= 16 {
		return 0
	}
	return max(16, min(size/step, limit))
}

// ipStaticBand and portStaticBand are upstream's ipallocator and
// portallocator static bands of a range of size values.
func ipStaticBand(size int) int   { return staticBandSize(size, 16, 256) }
func portStaticBand(size int) int { return staticBandSize(size, 32, 128) }

// forEach calls fn with every allocated offset, in increasing order.
func (b *allocationBitmap) forEach(fn func(offset int)) {
	for i := 0; i < b.bits.BitLen(); i++ {
		if b.bits.Bit(i) == 1 {
			fn(i)
		}
	}
}
