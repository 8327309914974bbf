package apiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/store"
)

// The repair pass keeps the range bitmaps true to the stored Services, as
// upstream's ipallocator/controller/repair.go and
// portallocator/controller/repair.go do. Allocation and the Service write
// are two etcd writes, so a crash (or a lost connection) between them
// leaves a bit set that no Service holds, and a bitmap lost or written by
// an older kplane misses bits that Services do hold. Each pass reads a
// range's bitmap, then lists every Service from etcd — in that order, so
// every Service whose bit was set before the read is in the list — and
// writes a rebuilt bitmap with compare-and-swap at the revision it read:
// if anything allocated or released meanwhile, the write fails and the
// pass starts over.
//
// A bit set in the bitmap that no Service holds may be a leak, or a create
// in flight (allocated, Service not yet written). So it is only freed when
// it was seen so on repairPassesBeforeLeakCleanup passes in a row; until
// then the rebuilt bitmap keeps it.
const (
	// repairPassesBeforeLeakCleanup is how many passes must see a bit
	// without a Service before it is freed (upstream: 3).
	repairPassesBeforeLeakCleanup = 3
	// DefaultAllocatorRepairInterval is how often the repair pass runs
	// after the one at start-up (upstream: 3 minutes).
	DefaultAllocatorRepairInterval = 3 * time.Minute
	// maxRepairAttempts bounds the retries of one pass on conflicts.
	maxRepairAttempts = 10
)

// allocatorRepair repairs both service ranges.
type allocatorRepair struct {
	ranges []*repairedRange
	// listServices reads every Service from etcd (not from a cache).
	listServices func(ctx context.Context) ([]*api.Service, error)
	log          *slog.Logger
}

// repairedRange is one range and what the repair pass remembers of it.
type repairedRange struct {
	shared *rangeAllocation
	// offsetsOf lists the offsets a Service holds in this range; values
	// outside the range are reported through outOfRange.
	offsetsOf func(svc *api.Service, outOfRange func(value string)) []int
	// leaks counts, per offset, the passes in a row that found it set
	// without a Service.
	leaks map[int]int
}

// newAllocatorRepair returns the repair pass over a's ranges.
func newAllocatorRepair(a *serviceAllocators, list func(ctx context.Context) ([]*api.Service, error), log *slog.Logger) *allocatorRepair {
	ips := &repairedRange{shared: a.ips.shared, leaks: map[int]int{},
		offsetsOf: func(svc *api.Service, outOfRange func(string)) []int {
			var offsets []int
			for _, ip := range serviceClusterIPs(svc) {
				parsed := net.ParseIP(ip)
				if parsed == nil {
					outOfRange(ip)
					continue
				}
				offset, ok := a.ips.offset(parsed)
				if !ok {
					outOfRange(ip)
					continue
				}
				offsets = append(offsets, offset)
			}
			return offsets
		}}
	ports := &repairedRange{shared: a.ports.shared, leaks: map[int]int{},
		offsetsOf: func(svc *api.Service, outOfRange func(string)) []int {
			var offsets []int
			for _, port := range serviceNodePorts(svc) {
				if offset, ok := a.ports.offset(port); ok {
					offsets = append(offsets, offset)
					continue
				}
				outOfRange(fmt.Sprint(port))
			}
			return offsets
		}}
	return &allocatorRepair{ranges: []*repairedRange{ips, ports}, listServices: list, log: log}
}

// run repairs every interval until ctx ends.
func (r *allocatorRepair) run(ctx context.Context, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		if err := r.runOnce(ctx); err != nil && ctx.Err() == nil {
			r.log.Error("repair service allocations", "err", err)
		}
	}
}

// runOnce makes one pass over every range.
func (r *allocatorRepair) runOnce(ctx context.Context) error {
	for _, rng := range r.ranges {
		if err := r.repairRange(ctx, rng); err != nil {
			return err
		}
	}
	return nil
}

// repairRange makes one pass over rng, starting over on a conflict.
func (r *allocatorRepair) repairRange(ctx context.Context, rng *repairedRange) error {
	for attempt := 0; attempt < maxRepairAttempts; attempt++ {
		err := r.tryRepair(ctx, rng)
		if errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrAlreadyExists) {
			continue
		}
		return err
	}
	return fmt.Errorf("repair %s: gave up after %d conflicting writes", rng.shared.key, maxRepairAttempts)
}

// tryRepair is one attempt of a pass; it updates rng.leaks only when its
// write succeeded (or was not needed).
func (r *allocatorRepair) tryRepair(ctx context.Context, rng *repairedRange) error {
	stored, revision, rewrite, err := rng.shared.snapshot(ctx)
	if err != nil {
		return fmt.Errorf("repair %s: %w", rng.shared.key, err)
	}
	services, err := r.listServices(ctx)
	if err != nil {
		return fmt.Errorf("repair %s: list services: %w", rng.shared.key, err)
	}
	before := stored.data()
	rebuilt := newAllocationBitmap(stored.size)
	unclaimed := stored.clone() // ends up holding the bits no Service holds
	for _, svc := range services {
		outOfRange := func(value string) {
			r.log.Warn("service holds a value outside the range; recreate it", "range", rng.shared.spec,
				"service", svc.Namespace+"/"+svc.Name, "value", value)
		}
		for _, offset := range rng.offsetsOf(svc, outOfRange) {
			if rebuilt.has(offset) {
				r.log.Warn("value allocated to several services; recreate one of them", "range", rng.shared.spec,
					"service", svc.Namespace+"/"+svc.Name, "offset", offset)
				continue
			}
			if !stored.has(offset) {
				r.log.Warn("service holds a value the range had not allocated; repairing", "range", rng.shared.spec,
					"service", svc.Namespace+"/"+svc.Name, "offset", offset)
			}
			rebuilt.set(offset)
			unclaimed.clear(offset)
		}
	}
	leaks := map[int]int{}
	unclaimed.forEach(func(offset int) {
		seen := rng.leaks[offset] + 1
		if seen < repairPassesBeforeLeakCleanup {
			leaks[offset] = seen
			rebuilt.set(offset) // maybe a create in flight: keep it for now
			return
		}
		r.log.Info("freeing leaked allocation", "range", rng.shared.spec, "offset", offset, "passes", seen)
	})
	if rewrite || !bytes.Equal(before, rebuilt.data()) {
		if err := rng.shared.replace(ctx, rebuilt, revision); err != nil {
			return err
		}
	}
	rng.leaks = leaks
	return nil
}

// listServicesFromEtcd reads every stored Service, bypassing the watch
// cache, which may lag behind the bitmap the repair pass just read.
func (s *Server) listServicesFromEtcd(ctx context.Context) ([]*api.Service, error) {
	svcRes := s.reg.byPluralAny["services"]
	list, err := s.store.List(ctx, svcRes.keyPrefix(""), store.ListOptions{})
	if err != nil {
		return nil, err
	}
	services := make([]*api.Service, 0, len(list.Items))
	for _, kv := range list.Items {
		so, err := s.decodeStored(svcRes, kv)
		if err != nil {
			return nil, err
		}
		services = append(services, so.obj.(*api.Service))
	}
	return services, nil
}
