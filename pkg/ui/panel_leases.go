package ui

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/clusterclock"
	"kplane/pkg/debug"
)

// The Leader-election panel: every Lease in kube-system — the
// controller-manager's and the scheduler's, and any other component's that
// elects a leader — with its holder, since when, its last renewal, its
// duration and how many times it changed hands, as `kubectl get leases -n
// kube-system -o yaml` shows them; and, from the components' debug APIs
// (PathLeader), every process that stands as a candidate for it, with its
// PID, so the student sees which process leads and which waits.
//
// Live by polling, not by the object stream: the holder renews every few
// seconds, and a renewal is only worth sending while someone looks. The
// page asks at most once a second, only while the panel is visible.

// leaseNamespace holds the control plane's leader-election Leases. (The
// kubelets' heartbeats are Leases too, in kube-node-lease; they elect
// nobody, and the nodes view shows their effect.)
const leaseNamespace = "kube-system"

// apiserverIdentityLabel marks an apiserver's identity Lease (upstream's
// label; pkg/apiserver/identitylease.go): a heartbeat each apiserver
// renews for itself, in kube-system beside the leader-election Leases,
// that elects nobody.
const apiserverIdentityLabel = "apiserver.kubernetes.io/identity"

// leasesAnswer is the answer of /api/debug/leases.
type leasesAnswer struct {
	Leases []leaseView `json:"leases"`
	// Now is the cluster's clock, to age the renewals against.
	Now time.Time `json:"now"`
}

// leaseView is one Lease and the processes that stand for it.
type leaseView struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Holder is spec.holderIdentity: the identity that leads ("" when
	// the lease was released).
	Holder string `json:"holder"`
	// AcquireTime is when the holder took the lease; RenewTime when it
	// last renewed it.
	AcquireTime *time.Time `json:"acquireTime,omitempty"`
	RenewTime   *time.Time `json:"renewTime,omitempty"`
	// LeaseDurationSeconds is how long the lease stays the holder's
	// without a renewal; after it a candidate may take it.
	LeaseDurationSeconds int32 `json:"leaseDurationSeconds"`
	// Transitions counts the changes of holder (spec.leaseTransitions).
	Transitions     int32  `json:"transitions"`
	ResourceVersion string `json:"resourceVersion"`
	// APIServerIdentity is set on an apiserver's identity Lease: a
	// heartbeat, not an election.
	APIServerIdentity bool `json:"apiserverIdentity,omitempty"`
	// Candidates are the processes taking part in this election, leader
	// first, as their debug APIs report them.
	Candidates []leaseCandidate `json:"candidates"`
}

// leaseCandidate is one process standing in a leader election.
type leaseCandidate struct {
	Component string `json:"component"`
	PID       int    `json:"pid,omitempty"`
	Identity  string `json:"identity"`
	// IsLeader says whether the process believes it leads now.
	IsLeader bool `json:"isLeader"`
}

// serveLeases is /api/debug/leases: the leader-election Leases and their
// candidates.
func (s *Server) serveLeases(w http.ResponseWriter, r *http.Request) {
	dc, endpoints, err := s.debugAPI()
	if err != nil {
		serveDebugUnavailable(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	list, err := s.opts.Client.Leases(leaseNamespace).List(ctx, client.ListOptions{})
	if err != nil {
		debug.WriteStatus(w, http.StatusBadGateway, "InternalError", fmt.Sprintf("list the leases in %s: %v", leaseNamespace, err))
		return
	}
	debug.WriteJSON(w, leasesAnswer{Leases: leaseViews(list.Items, debug.ReadLeaders(ctx, dc, endpoints)), Now: s.clusterNow(ctx)})
}

// clusterNow is the cluster's clock, which the components renew their
// Leases by: the wall clock, moved forward by `ctl time advance` on a
// cluster started with --virtual-clock. When the offset cannot be read the
// wall clock has to do.
func (s *Server) clusterNow(ctx context.Context) time.Time {
	offset, err := clusterclock.Read(ctx, s.opts.Client)
	if err != nil {
		offset = 0 // ErrWallClock, or the ConfigMap could not be read
	}
	return time.Now().Add(offset)
}

// leaseViews joins the Leases with the elections the components report
// (matched by the lease's "namespace/name"), sorted by name.
func leaseViews(leases []*api.Lease, components []debug.ComponentLeaders) []leaseView {
	out := make([]leaseView, 0, len(leases))
	for _, l := range leases {
		v := leaseView{Namespace: l.Namespace, Name: l.Name, ResourceVersion: l.ResourceVersion, Candidates: []leaseCandidate{}}
		_, v.APIServerIdentity = l.Labels[apiserverIdentityLabel]
		spec := l.Spec
		if spec.HolderIdentity != nil {
			v.Holder = *spec.HolderIdentity
		}
		if spec.AcquireTime != nil {
			v.AcquireTime = &spec.AcquireTime.Time
		}
		if spec.RenewTime != nil {
			v.RenewTime = &spec.RenewTime.Time
		}
		if spec.LeaseDurationSeconds != nil {
			v.LeaseDurationSeconds = *spec.LeaseDurationSeconds
		}
		if spec.LeaseTransitions != nil {
			v.Transitions = *spec.LeaseTransitions
		}
		key := l.Namespace + "/" + l.Name
		for _, c := range components {
			for _, e := range c.Elections {
				if e.Lease == key {
					v.Candidates = append(v.Candidates, leaseCandidate{Component: c.Component, PID: c.PID, Identity: e.Identity, IsLeader: e.IsLeader})
				}
			}
		}
		slices.SortFunc(v.Candidates, func(a, b leaseCandidate) int {
			if a.IsLeader != b.IsLeader {
				if a.IsLeader {
					return -1
				}
				return 1
			}
			return strings.Compare(a.Component, b.Component)
		})
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b leaseView) int { return strings.Compare(a.Name, b.Name) })
	return out
}
