// Package leaderelection lets several copies of a component (two
// controller-managers, two schedulers) agree that exactly one of them does
// the work at a time, by taking turns holding a coordination.k8s.io/v1 Lease.
//
// The Lease is an ordinary API object; the apiserver's optimistic
// concurrency (every update carries the resourceVersion it read, and a stale
// one gets 409 Conflict) is the only synchronisation. A candidate:
//
//  1. reads the Lease (creating it if it is missing);
//  2. if someone else holds it and that holder's record has changed within
//     the last leaseDurationSeconds — as measured on this candidate's own
//     clock, from the moment it first saw that version of the record — it
//     waits RetryPeriod (plus jitter) and tries again;
//  3. otherwise it writes itself in as holderIdentity, with the
//     resourceVersion it read. If another candidate wrote first, the update
//     fails with Conflict and this candidate has simply lost the round.
//
// The leader then renews renewTime every RetryPeriod. If it cannot renew for
// RenewDeadline it stops leading, which happens before anyone else may take
// over (LeaseDuration > RenewDeadline). On a clean shutdown it can release
// the Lease (holderIdentity "") so a standby takes over at its next retry
// instead of waiting for the lease to expire.
//
// This mirrors client-go's tools/leaderelection. Like upstream, it does not
// fence: a leader that is paused (GC, a stopped VM) can wake up and act for a
// moment after another has taken over, so the work it guards must itself be
// safe under a brief overlap. docs/leader-election.md explains the three
// durations, what the Lease looks like and what that means for controllers.
package leaderelection
