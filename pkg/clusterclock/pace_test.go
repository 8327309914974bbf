package clusterclock

import (
	"slices"
	"testing"
	"time"

	"kplane/pkg/api"
)

// lease is a Lease held by holder, renewed at renewed, lasting duration.
func lease(name, holder string, duration time.Duration, renewed time.Time) *api.Lease {
	seconds := int32(duration / time.Second)
	renewTime := api.MicroTime{Time: renewed}
	return &api.Lease{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.LeaseSpec{
		HolderIdentity: &holder, LeaseDurationSeconds: &seconds, RenewTime: &renewTime}}
}

func TestPacerFollowsTheLiveLeaderElections(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	leases := []*api.Lease{
		lease("kube-controller-manager", "cm-1", 15*time.Second, now.Add(-time.Second)),
		lease("kube-scheduler", "sched-1", 15*time.Second, now.Add(-14*time.Second)),
		lease("expired", "gone", 15*time.Second, now.Add(-16*time.Second)),
		lease("released", "", 15*time.Second, now.Add(-time.Second)),
		lease("apiserver-abc", "apiserver-abc", time.Hour, now.Add(-time.Second)),
	}
	live := liveElectionLeases(leases, now)
	var names []string
	for name := range live {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{"kube-controller-manager", "kube-scheduler"}; !slices.Equal(names, want) {
		t.Fatalf("followed %v, want %v: live leader elections only, not an expired, released or hour-long lease", names, want)
	}

	// A 5 s step later, both are behind until they renew; a renewal 4 s
	// old is recent enough for the next step.
	p := &leasePacer{followed: live}
	stepTime := now.Add(5 * time.Second)
	if got := p.behind(leases, stepTime); !slices.Equal(got, []string{"kube-controller-manager", "kube-scheduler"}) {
		t.Fatalf("behind after a 5 s step: %v, want both leaders", got)
	}
	leases[0] = lease("kube-controller-manager", "cm-1", 15*time.Second, stepTime.Add(time.Millisecond))
	leases[1] = lease("kube-scheduler", "sched-2", 15*time.Second, stepTime.Add(-renewalLag))
	if got := p.behind(leases, stepTime); len(got) != 0 {
		t.Fatalf("behind once both renewed (one by a new holder): %v, want none", got)
	}
}
