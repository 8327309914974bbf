package clusterclock

import (
	"context"
	"fmt"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// A leader renews its Lease every retry period (2 s) and gives up leading
// when it has not renewed for the renew deadline (10 s): two 5 s steps. On
// a busy machine a fixed pause between steps is not always enough for the
// leader to see a step, renew and be answered before the next one, and a
// leader that misses two steps stops leading (and its process restarts,
// losing what it kept in memory: the HPA's recommendations, for one).
// Time that jumps is kplane's, not the leader's: so Advance waits, after
// each step, until the leaders have renewed at the new time.
//
// The leases waited for are the leader elections' (kube-system, a holder,
// a lease duration of at most maxPacedLeaseDuration: 15 s by default), and
// only those that were live before the step. A holder that does not renew
// within renewalWait (a killed or paused leader) is not waited for again
// during this advance: its Lease expires, as it would in real time.

// maxPacedLeaseDuration bounds the lease durations Advance paces: leader
// election's (15 s by default), not the apiserver's identity leases (an
// hour) or the nodes' (40 s, renewed every 10 s, in kube-node-lease).
const maxPacedLeaseDuration = 60 * time.Second

// renewalWait is the most Advance waits, after one step, for a holder to
// renew.
const renewalWait = 5 * time.Second

// renewalPoll is how often Advance reads the Leases while it waits.
const renewalPoll = 10 * time.Millisecond

// renewalLag is how old, in cluster time, a renewal may be when a step has
// been written and the next may follow: a 5 s step on a Lease renewed 4 s
// before leaves the leader a second before its 10 s renew deadline, and
// its 2 s retry timer has fired by then. So a short step (the last of an
// advance of 12 s) needs no renewal, and a full one always does.
const renewalLag = 4 * time.Second

// leasePacer remembers, over one Advance, which Leases are followed.
type leasePacer struct {
	leases *client.TypedClient[*api.Lease]
	// followed is nil until the first step, then the names of the leases
	// still waited for.
	followed map[string]bool
}

func newLeasePacer(c *client.Client) *leasePacer {
	return &leasePacer{leases: c.Leases(Namespace)}
}

// waitForRenewals waits until every followed Lease has been renewed at
// most renewalLag before stepTime, the cluster time the step just written
// began at; step is how far it moved the clock.
func (p *leasePacer) waitForRenewals(ctx context.Context, stepTime time.Time, step time.Duration) error {
	deadline := time.Now().Add(renewalWait)
	for {
		list, err := p.leases.List(ctx, client.ListOptions{})
		if err != nil {
			return fmt.Errorf("read the leader election Leases: %w", err)
		}
		if p.followed == nil {
			p.followed = liveElectionLeases(list.Items, stepTime.Add(-step))
		}
		behind := p.behind(list.Items, stepTime)
		if len(behind) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			for _, name := range behind {
				delete(p.followed, name) // its holder is gone or stopped
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the leaders to renew: %w", ctx.Err())
		case <-time.After(renewalPoll):
		}
	}
}

// behind names the followed Leases not caught up with cluster time now.
func (p *leasePacer) behind(leases []*api.Lease, now time.Time) []string {
	var names []string
	for _, lease := range leases {
		if p.followed[lease.Name] && !caughtUp(lease, now) {
			names = append(names, lease.Name)
		}
	}
	return names
}

// liveElectionLeases names the leader election Leases whose holder was
// renewing at cluster time now.
func liveElectionLeases(leases []*api.Lease, now time.Time) map[string]bool {
	live := map[string]bool{}
	for _, lease := range leases {
		spec := lease.Spec
		if spec.HolderIdentity == nil || *spec.HolderIdentity == "" || spec.RenewTime == nil || spec.LeaseDurationSeconds == nil {
			continue
		}
		duration := time.Duration(*spec.LeaseDurationSeconds) * time.Second
		if duration > maxPacedLeaseDuration || !spec.RenewTime.Time.Add(duration).After(now) {
			continue
		}
		live[lease.Name] = true
	}
	return live
}

// caughtUp reports whether lease was renewed at most renewalLag before
// cluster time now.
func caughtUp(lease *api.Lease, now time.Time) bool {
	return lease.Spec.RenewTime != nil && now.Sub(lease.Spec.RenewTime.Time) <= renewalLag
}
