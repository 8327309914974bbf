package simload

// This file turns a Load into samples: the noise, and the cumulative CPU
// counter a kubelet reports (upstream's usageCoreNanoSeconds, cAdvisor's
// cpuacct.usage), from which metrics-server computes a rate as
// Δcounter / Δtime between two scrapes.

import (
	"math/bits"
	"time"
)

// Noise reduces figure by the fraction u × MaxNoise, where u in [0, 1) is
// a random draw (rand.Float64): the result is never above figure and never
// more than 2 % below it. With noisy false it is figure itself.
func Noise(figure uint64, u float64, noisy bool) uint64 {
	if !noisy || u <= 0 {
		return figure
	}
	if u >= 1 {
		u = 1
	}
	return figure - uint64(float64(figure)*MaxNoise*u)
}

// NanoCores is load's CPU in nanocores (the Summary API's unit), with
// noise u.
func (l Load) NanoCores(u float64) uint64 {
	return Noise(uint64(max(l.MilliCPU, 0))*1e6, u, l.Noisy)
}

// WorkingSetBytes is load's memory with noise u.
func (l Load) WorkingSetBytes(u float64) uint64 {
	return Noise(uint64(max(l.MemoryBytes, 0)), u, l.Noisy)
}

// CPUCounter integrates a CPU rate over time into a cumulative counter of
// core-nanoseconds, the way the kernel's cpuacct counts a cgroup's CPU
// time. The rate is piecewise constant: it holds from one SetRate to the
// next, so the counter is exact for any clock — under a virtual clock that
// jumps an hour, a container at 300m has used exactly 1080 core-seconds.
//
// Invariant: total is the integral of the rate from the counter's start to
// at; it never decreases. A CPUCounter is not safe for concurrent use.
type CPUCounter struct {
	total uint64    // core-nanoseconds up to at
	rem   uint64    // the fraction of a core-nanosecond not yet in total, in 1e-9 units (< 1e9)
	rate  uint64    // nanocores since at
	at    time.Time // when total was last brought up to date
}

// NewCPUCounter starts a counter at zero at start, counting rate.
func NewCPUCounter(start time.Time, rate uint64) *CPUCounter {
	return &CPUCounter{at: start, rate: rate}
}

// Advance brings the counter up to now at the current rate and returns it.
// A now before the last update (a clock stepped back) adds nothing.
func (c *CPUCounter) Advance(now time.Time) uint64 {
	if elapsed := now.Sub(c.at); elapsed > 0 {
		// rate [1e-9 cores] × elapsed [ns] / 1e9 = core-nanoseconds; the
		// product is taken in 128 bits so hours at many cores cannot
		// overflow, and the remainder is carried so that many short
		// steps add up to exactly one long one.
		hi, lo := bits.Mul64(c.rate, uint64(elapsed))
		lo, carry := bits.Add64(lo, c.rem, 0)
		hi += carry
		if hi < 1e9 {
			q, r := bits.Div64(hi, lo, 1e9)
			c.total, c.rem = c.total+q, r
		}
		c.at = now
	}
	return c.total
}

// SetRate brings the counter up to now and counts rate from then on.
func (c *CPUCounter) SetRate(now time.Time, rate uint64) {
	c.Advance(now)
	c.rate = rate
}

// Rate is the rate the counter currently counts, in nanocores.
func (c *CPUCounter) Rate() uint64 { return c.rate }

// NodeUsage is a node's usage given the sum of its containers' samples:
// that sum plus the node's base (NodeBaseMilliCPU, NodeBaseMemoryBytes).
func NodeUsage(podsNanoCores, podsWorkingSetBytes uint64) (nanoCores, workingSetBytes uint64) {
	return podsNanoCores + NodeBaseMilliCPU*1e6, podsWorkingSetBytes + NodeBaseMemoryBytes
}
