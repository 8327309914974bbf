package ui

import (
	"reflect"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/debug"
)

// A Lease is shown with its holder and timing from the API, and with the
// processes that stand for it from their debug APIs, the leader first.
func TestLeaseViewsJoinTheLeaseWithItsCandidates(t *testing.T) {
	ptr := func(s string) *string { return &s }
	seconds := func(n int32) *int32 { return &n }
	renewed := time.Date(2026, 11, 28, 17, 0, 5, 0, time.UTC)
	acquired := renewed.Add(-time.Minute)
	leases := []*api.Lease{
		{ObjectMeta: api.ObjectMeta{Namespace: "kube-system", Name: "kube-scheduler", ResourceVersion: "42"}, Spec: api.LeaseSpec{
			HolderIdentity: ptr("scheduler_b"), LeaseDurationSeconds: seconds(15), LeaseTransitions: seconds(1),
			AcquireTime: &api.MicroTime{Time: acquired}, RenewTime: &api.MicroTime{Time: renewed},
		}},
		{ObjectMeta: api.ObjectMeta{Namespace: "kube-system", Name: "kube-controller-manager", ResourceVersion: "7"}},
		{ObjectMeta: api.ObjectMeta{Namespace: "kube-system", Name: "apiserver-x", ResourceVersion: "9",
			Labels: map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver"}}},
	}
	components := []debug.ComponentLeaders{
		{Component: "apiserver", PID: 10, Elections: []debug.LeaderState{}},
		{Component: "scheduler", PID: 11, Elections: []debug.LeaderState{{Lease: "kube-system/kube-scheduler", Identity: "scheduler_a"}}},
		{Component: "scheduler-2", PID: 12, Elections: []debug.LeaderState{{Lease: "kube-system/kube-scheduler", Identity: "scheduler_b", IsLeader: true}}},
	}
	want := []leaseView{
		{Namespace: "kube-system", Name: "apiserver-x", ResourceVersion: "9", APIServerIdentity: true, Candidates: []leaseCandidate{}},
		{Namespace: "kube-system", Name: "kube-controller-manager", ResourceVersion: "7", Candidates: []leaseCandidate{}},
		{Namespace: "kube-system", Name: "kube-scheduler", ResourceVersion: "42", Holder: "scheduler_b",
			AcquireTime: &acquired, RenewTime: &renewed, LeaseDurationSeconds: 15, Transitions: 1,
			Candidates: []leaseCandidate{
				{Component: "scheduler-2", PID: 12, Identity: "scheduler_b", IsLeader: true},
				{Component: "scheduler", PID: 11, Identity: "scheduler_a"},
			}},
	}
	if got := leaseViews(leases, components); !reflect.DeepEqual(got, want) {
		t.Errorf("leaseViews:\n got %+v\nwant %+v", got, want)
	}
}
