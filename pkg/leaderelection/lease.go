package leaderelection

import (
	"context"
	"fmt"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
)

// leaseRecord is the part of a Lease the election reads: who holds it, for
// how long, and the counters that change on every renewal or hand-over.
// Comparing two records says whether the holder has written since we last
// looked. Times are kept in microseconds, the precision a MicroTime survives
// a round trip through the API with.
type leaseRecord struct {
	holder               string
	leaseDurationSeconds int32
	acquireTime          int64
	renewTime            int64
	leaseTransitions     int32
}

// recordOf extracts the election record from a Lease spec. Missing fields
// read as zero, as upstream's LeaseSpec conversion does: a Lease without
// leaseDurationSeconds expires as soon as it is observed.
func recordOf(spec api.LeaseSpec) leaseRecord {
	r := leaseRecord{}
	if spec.HolderIdentity != nil {
		r.holder = *spec.HolderIdentity
	}
	if spec.LeaseDurationSeconds != nil {
		r.leaseDurationSeconds = *spec.LeaseDurationSeconds
	}
	if spec.AcquireTime != nil {
		r.acquireTime = spec.AcquireTime.UnixMicro()
	}
	if spec.RenewTime != nil {
		r.renewTime = spec.RenewTime.UnixMicro()
	}
	if spec.LeaseTransitions != nil {
		r.leaseTransitions = *spec.LeaseTransitions
	}
	return r
}

// tryAcquireOrRenew makes one attempt to become or stay the holder and
// reports whether it succeeded. It is the whole algorithm; the loops in
// leaderelection.go only decide when to call it.
func (le *LeaderElector) tryAcquireOrRenew(ctx context.Context) bool {
	now := le.clock.Now()

	// 1. Fast path: a leader whose lease is still valid assumes nobody
	// changed it and updates the version it last wrote. If that guess is
	// wrong the apiserver answers Conflict and we fall back to reading.
	le.mu.Lock()
	cached := le.observedLease
	fastPath := cached != nil && le.observedRecord.holder == le.config.Identity && le.isLeaseValidLocked(now)
	le.mu.Unlock()
	if fastPath {
		lease := api.DeepCopy(cached)
		lease.Spec = le.heldSpec(lease.Spec, now)
		updated, err := le.config.Leases.Update(ctx, lease, client.UpdateOptions{})
		if err == nil {
			le.recordSuccess(updated, now)
			return true
		}
		le.log.Debug("optimistic renew failed; reading the lease", "err", err)
		if ctx.Err() != nil {
			return false
		}
	}

	// 2. Read the Lease, creating it if it does not exist yet.
	lease, err := le.config.Leases.Get(ctx, le.config.Name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return le.create(ctx, now)
	}
	if err != nil {
		if ctx.Err() == nil { // a cancelled attempt is not worth an error line
			le.log.Error("failed to get lease", "err", err)
		}
		return false
	}
	le.observe(lease)

	// 3. Someone else holds a lease we have seen change recently: wait.
	current := recordOf(lease.Spec)
	if current.holder != "" && current.holder != le.config.Identity && le.isLeaseValid() {
		le.log.Debug("lease is held by another candidate and has not expired", "holder", current.holder)
		return false
	}

	// 4. It is free, expired or ours: write ourselves in, conditioned on
	// the resourceVersion just read. A Conflict means another candidate
	// wrote first and has won this round.
	next := api.DeepCopy(lease)
	next.Spec = le.heldSpec(lease.Spec, now)
	updated, err := le.config.Leases.Update(ctx, next, client.UpdateOptions{})
	if err != nil {
		if apierrors.IsConflict(err) {
			le.log.Debug("lost the race to update the lease", "err", err)
		} else {
			le.log.Error("failed to update lease", "err", err)
		}
		return false
	}
	if current.holder != le.config.Identity {
		le.log.Info("took over lease", "previousHolder", current.holder,
			"leaseTransitions", recordOf(updated.Spec).leaseTransitions)
	}
	le.recordSuccess(updated, now)
	return true
}

// create makes the Lease with this candidate as its first holder. If
// another candidate created it first the apiserver answers AlreadyExists and
// the next attempt reads theirs.
func (le *LeaderElector) create(ctx context.Context, now time.Time) bool {
	lease := &api.Lease{
		TypeMeta:   api.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: api.ObjectMeta{Name: le.config.Name, Namespace: le.config.Namespace},
		Spec:       le.heldSpec(api.LeaseSpec{}, now),
	}
	// The first holder of a new Lease is not a transition (upstream starts
	// leaseTransitions at 0 too).
	zero := int32(0)
	lease.Spec.LeaseTransitions = &zero
	created, err := le.config.Leases.Create(ctx, lease, client.CreateOptions{})
	if err != nil {
		if apierrors.IsAlreadyExists(err) {
			le.log.Debug("another candidate created the lease first")
		} else {
			le.log.Error("failed to create lease", "err", err)
		}
		return false
	}
	le.log.Info("created lease")
	le.recordSuccess(created, now)
	return true
}

// heldSpec returns old with this candidate as holder as of now. Renewing
// (we already hold it) only moves renewTime; taking over from someone else,
// or from nobody after a release, also resets acquireTime and counts a
// transition.
func (le *LeaderElector) heldSpec(old api.LeaseSpec, now time.Time) api.LeaseSpec {
	spec := api.DeepCopyValue(old)
	nowMicro := &api.MicroTime{Time: now}
	durationSeconds := int32(le.config.LeaseDuration / time.Second)
	spec.HolderIdentity = &le.config.Identity
	spec.LeaseDurationSeconds = &durationSeconds
	spec.RenewTime = nowMicro

	previous := recordOf(old)
	if previous.holder == le.config.Identity && old.AcquireTime != nil {
		return spec
	}
	transitions := previous.leaseTransitions + 1
	if previous.holder == le.config.Identity {
		transitions = previous.leaseTransitions
	}
	spec.AcquireTime, spec.LeaseTransitions = nowMicro, &transitions
	return spec
}

// release hands the Lease back on a clean shutdown: holderIdentity "", a
// one-second duration and fresh times, as upstream writes it, so standbys
// see it free at their next retry. It only touches a Lease that still names
// this candidate, and only through a conditional update.
//
// A conflict is read again and retried (unlike upstream, which gives up):
// the last renew, cut off client-side by the cancelled context, may still
// land on the server after release has read the Lease, and the Lease would
// then stay held for its whole duration.
func (le *LeaderElector) release() {
	ctx, cancel := le.contextWithin(context.Background(), le.config.RenewDeadline)
	defer cancel()
	const attempts = 3
	for attempt := 1; ; attempt++ {
		err := le.releaseOnce(ctx)
		if err == nil || !apierrors.IsConflict(err) || attempt == attempts {
			if err != nil {
				le.log.Error("failed to release lease", "err", err)
			}
			return
		}
	}
}

// releaseOnce reads the Lease and, if this candidate still holds it, writes
// it back released. Not holding it is not an error.
func (le *LeaderElector) releaseOnce(ctx context.Context) error {
	lease, err := le.config.Leases.Get(ctx, le.config.Name, client.GetOptions{})
	if err != nil {
		return fmt.Errorf("read lease to release it: %w", err)
	}
	if holder := recordOf(lease.Spec).holder; holder != le.config.Identity {
		le.log.Info("not releasing lease held by another candidate", "holder", holder)
		return nil
	}
	now := &api.MicroTime{Time: le.clock.Now()}
	empty, oneSecond := "", int32(1)
	released := api.DeepCopy(lease)
	released.Spec.HolderIdentity = &empty
	released.Spec.LeaseDurationSeconds = &oneSecond
	released.Spec.AcquireTime, released.Spec.RenewTime = now, now
	updated, err := le.config.Leases.Update(ctx, released, client.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("release lease: %w", err)
	}
	le.observe(updated)
	le.log.Info("released lease")
	return nil
}

// observe remembers lease as the latest version seen, and restarts the
// expiry clock if its record differs from the one seen before.
func (le *LeaderElector) observe(lease *api.Lease) {
	le.mu.Lock()
	defer le.mu.Unlock()
	le.observedLease = lease
	if r := recordOf(lease.Spec); r != le.observedRecord || le.observedTime.IsZero() {
		le.observedRecord = r
		le.observedTime = le.clock.Now()
	}
}

// recordSuccess notes a successful acquire or renew that was sent at sentAt.
func (le *LeaderElector) recordSuccess(lease *api.Lease, sentAt time.Time) {
	le.observe(lease)
	le.mu.Lock()
	defer le.mu.Unlock()
	le.leading = true
	le.renewedAt = sentAt
}

// isLeaseValid reports whether the observed holder's lease has not yet
// expired by this candidate's clock.
func (le *LeaderElector) isLeaseValid() bool {
	le.mu.Lock()
	defer le.mu.Unlock()
	return le.isLeaseValidLocked(le.clock.Now())
}

func (le *LeaderElector) isLeaseValidLocked(now time.Time) bool {
	expiry := le.observedTime.Add(time.Duration(le.observedRecord.leaseDurationSeconds) * time.Second)
	return now.Before(expiry)
}

// leadingLocked is IsLeader with mu held.
func (le *LeaderElector) leadingLocked(now time.Time) bool {
	return le.leading && le.observedRecord.holder == le.config.Identity &&
		now.Before(le.renewedAt.Add(le.config.RenewDeadline))
}
