package garbagecollector

import (
	"slices"
	"testing"

	"kplane/pkg/api"
)

// Test fixtures: a ReplicaSet "rs" (uid rs-uid) owning pods.

func ownerRef(kind, name, uid string, block bool) api.OwnerReference {
	apiVersion := "v1"
	if kind == "ReplicaSet" || kind == "Deployment" {
		apiVersion = "apps/v1"
	}
	return api.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, BlockOwnerDeletion: &block}
}

func rsRef(block bool) api.OwnerReference { return ownerRef("ReplicaSet", "rs", "rs-uid", block) }

func podID(name string) objectReference {
	return objectReference{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: name, UID: name + "-uid"}
}

func rsID() objectReference {
	return objectReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "default", Name: "rs", UID: "rs-uid"}
}

func metaFor(id objectReference, owners ...api.OwnerReference) *api.ObjectMeta {
	return &api.ObjectMeta{Name: id.Name, Namespace: id.Namespace, UID: id.UID, OwnerReferences: owners}
}

func deleting(m *api.ObjectMeta, finalizers ...string) *api.ObjectMeta {
	c := *m
	now := api.Now()
	c.DeletionTimestamp = &now
	c.Finalizers = finalizers
	return &c
}

func TestGraphObserve(t *testing.T) {
	tests := []struct {
		name string
		// setup builds the graph before act; its queue changes are ignored.
		setup      func(g *graph)
		act        func(g *graph) queueChanges
		wantDelete []string
		wantOrphan []string
		check      func(t *testing.T, g *graph)
	}{
		{
			name:       "a dependent seen before its owner creates a virtual owner to verify",
			act:        func(g *graph) queueChanges { return g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true))) },
			wantDelete: []string{"rs-uid"},
			check: func(t *testing.T, g *graph) {
				rs := g.nodes["rs-uid"]
				if rs == nil || !rs.virtual || rs.identity != rsID() {
					t.Fatalf("owner node = %+v, want virtual node with identity %v", rs, rsID())
				}
				if _, ok := rs.dependents[g.nodes["p1-uid"]]; !ok {
					t.Fatalf("p1 is not a dependent of the virtual owner")
				}
			},
		},
		{
			name:  "observing the owner makes the virtual node real, nothing to do",
			setup: func(g *graph) { g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true))) },
			act:   func(g *graph) queueChanges { return g.observe(rsID(), nil, metaFor(rsID())) },
			check: func(t *testing.T, g *graph) {
				if rs := g.nodes["rs-uid"]; rs.virtual || len(rs.dependents) != 1 {
					t.Fatalf("owner node = %+v, want observed with 1 dependent", rs)
				}
			},
		},
		{
			name:  "an owner observed with other coordinates than its dependents named queues them",
			setup: func(g *graph) { g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true))) },
			act: func(g *graph) queueChanges {
				other := rsID()
				other.Name = "not-rs"
				return g.observe(other, nil, metaFor(other))
			},
			wantDelete: []string{"p1-uid"},
		},
		{
			name: "an owner's deletion queues its dependents and removes its node",
			setup: func(g *graph) {
				g.observe(rsID(), nil, metaFor(rsID()))
				g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true)))
				g.observe(podID("p2"), nil, metaFor(podID("p2"), rsRef(false)))
			},
			act:        func(g *graph) queueChanges { return g.observeDeletion("rs-uid") },
			wantDelete: []string{"p1-uid", "p2-uid"},
			check: func(t *testing.T, g *graph) {
				if _, ok := g.nodes["rs-uid"]; ok {
					t.Fatalf("owner still in the graph")
				}
			},
		},
		{
			name: "a dependent's deletion queues an owner in foreground deletion",
			setup: func(g *graph) {
				g.observe(rsID(), nil, metaFor(rsID()))
				g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true)))
				g.observe(rsID(), metaFor(rsID()), deleting(metaFor(rsID()), api.FinalizerDeleteDependents))
			},
			act:        func(g *graph) queueChanges { return g.observeDeletion("p1-uid") },
			wantDelete: []string{"rs-uid"},
			check: func(t *testing.T, g *graph) {
				if len(g.nodes["rs-uid"].dependents) != 0 {
					t.Fatalf("owner still lists the deleted dependent")
				}
			},
		},
		{
			name: "a dependent's deletion does not queue an owner that is not waiting",
			setup: func(g *graph) {
				g.observe(rsID(), nil, metaFor(rsID()))
				g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true)))
			},
			act: func(g *graph) queueChanges { return g.observeDeletion("p1-uid") },
		},
		{
			name: "foreground deletion starting queues the owner and every dependent",
			setup: func(g *graph) {
				g.observe(rsID(), nil, metaFor(rsID()))
				g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true)))
				g.observe(podID("p2"), nil, metaFor(podID("p2"), rsRef(false)))
			},
			act: func(g *graph) queueChanges {
				return g.observe(rsID(), metaFor(rsID()), deleting(metaFor(rsID()), api.FinalizerDeleteDependents))
			},
			wantDelete: []string{"p1-uid", "p2-uid", "rs-uid"},
			check: func(t *testing.T, g *graph) {
				if rs := g.nodes["rs-uid"]; !rs.deletingDependents || !rs.beingDeleted {
					t.Fatalf("owner node = %+v, want beingDeleted and deletingDependents", rs)
				}
			},
		},
		{
			name: "an owner already in foreground deletion in the initial list is queued",
			act: func(g *graph) queueChanges {
				return g.observe(rsID(), nil, deleting(metaFor(rsID()), api.FinalizerDeleteDependents))
			},
			wantDelete: []string{"rs-uid"},
		},
		{
			name:  "orphan deletion starting queues the owner for orphaning",
			setup: func(g *graph) { g.observe(rsID(), nil, metaFor(rsID())) },
			act: func(g *graph) queueChanges {
				return g.observe(rsID(), metaFor(rsID()), deleting(metaFor(rsID()), api.FinalizerOrphanDependents))
			},
			wantOrphan: []string{"rs-uid"},
		},
		{
			name: "a resync of an object already being deleted queues nothing",
			setup: func(g *graph) {
				g.observe(rsID(), nil, deleting(metaFor(rsID()), api.FinalizerOrphanDependents))
			},
			act: func(g *graph) queueChanges {
				m := deleting(metaFor(rsID()), api.FinalizerOrphanDependents)
				return g.observe(rsID(), m, m)
			},
		},
		{
			name: "removing a blocking reference queues the owner",
			setup: func(g *graph) {
				g.observe(rsID(), nil, metaFor(rsID()))
				g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true)))
			},
			act: func(g *graph) queueChanges {
				return g.observe(podID("p1"), metaFor(podID("p1"), rsRef(true)), metaFor(podID("p1")))
			},
			wantDelete: []string{"rs-uid"},
			check: func(t *testing.T, g *graph) {
				if len(g.nodes["rs-uid"].dependents) != 0 {
					t.Fatalf("pod still a dependent after its reference was removed")
				}
			},
		},
		{
			name: "turning blockOwnerDeletion off queues the owner",
			setup: func(g *graph) {
				g.observe(rsID(), nil, metaFor(rsID()))
				g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true)))
			},
			act: func(g *graph) queueChanges {
				return g.observe(podID("p1"), metaFor(podID("p1"), rsRef(true)), metaFor(podID("p1"), rsRef(false)))
			},
			wantDelete: []string{"rs-uid"},
		},
		{
			name: "turning blockOwnerDeletion on queues nothing",
			setup: func(g *graph) {
				g.observe(rsID(), nil, metaFor(rsID()))
				g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(false)))
			},
			act: func(g *graph) queueChanges {
				return g.observe(podID("p1"), metaFor(podID("p1"), rsRef(false)), metaFor(podID("p1"), rsRef(true)))
			},
		},
		{
			name: "a reference added to an unknown owner creates a virtual node",
			setup: func(g *graph) {
				g.observe(podID("p1"), nil, metaFor(podID("p1")))
			},
			act: func(g *graph) queueChanges {
				return g.observe(podID("p1"), metaFor(podID("p1")), metaFor(podID("p1"), rsRef(true)))
			},
			wantDelete: []string{"rs-uid"},
		},
		{
			name:       "a verified-absent virtual node leaves the graph and queues its dependents",
			setup:      func(g *graph) { g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true))) },
			act:        func(g *graph) queueChanges { return g.removeVirtual("rs-uid") },
			wantDelete: []string{"p1-uid"},
			check: func(t *testing.T, g *graph) {
				if _, ok := g.nodes["rs-uid"]; ok {
					t.Fatalf("virtual node still in the graph")
				}
			},
		},
		{
			name: "removeVirtual leaves an observed node alone",
			setup: func(g *graph) {
				g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true)))
				g.observe(rsID(), nil, metaFor(rsID()))
			},
			act: func(g *graph) queueChanges { return g.removeVirtual("rs-uid") },
			check: func(t *testing.T, g *graph) {
				if _, ok := g.nodes["rs-uid"]; !ok {
					t.Fatalf("observed node removed")
				}
			},
		},
		{
			name: "a virtual owner leaves the graph with its last dependent",
			setup: func(g *graph) {
				g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true)))
				g.observe(podID("p2"), nil, metaFor(podID("p2"), rsRef(true)))
				g.observeDeletion("p1-uid")
			},
			act: func(g *graph) queueChanges { return g.observeDeletion("p2-uid") },
			check: func(t *testing.T, g *graph) {
				if _, ok := g.nodes["rs-uid"]; ok {
					t.Fatalf("virtual owner without dependents still in the graph")
				}
			},
		},
		{
			name: "a cluster-scoped owner's virtual node has no namespace",
			act: func(g *graph) queueChanges {
				return g.observe(podID("p1"), nil, metaFor(podID("p1"), ownerRef("Node", "n1", "node-uid", false)))
			},
			wantDelete: []string{"node-uid"},
			check: func(t *testing.T, g *graph) {
				if ns := g.nodes["node-uid"].identity.Namespace; ns != "" {
					t.Fatalf("virtual Node namespace = %q, want none", ns)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGraph(newRESTMapper())
			if tt.setup != nil {
				tt.setup(g)
			}
			got := tt.act(g)
			if !sameSet(got.toDelete, tt.wantDelete) {
				t.Errorf("attemptToDelete got %v, want %v", got.toDelete, tt.wantDelete)
			}
			if !sameSet(got.toOrphan, tt.wantOrphan) {
				t.Errorf("attemptToOrphan got %v, want %v", got.toOrphan, tt.wantOrphan)
			}
			if tt.check != nil {
				tt.check(t, g)
			}
			checkInvariants(t, g)
		})
	}
}

// checkInvariants asserts the graph's link invariant: n is a dependent of
// m iff n names m's uid among its owners (for m in the graph).
func checkInvariants(t *testing.T, g *graph) {
	t.Helper()
	for uid, n := range g.nodes {
		if n.identity.UID != uid {
			t.Errorf("node under %s has uid %s", uid, n.identity.UID)
		}
		for d := range n.dependents {
			if g.nodes[d.identity.UID] != d {
				t.Errorf("%s lists dependent %s that is not in the graph", uid, d.identity.UID)
			}
			if !slices.ContainsFunc(d.owners, func(r api.OwnerReference) bool { return r.UID == uid }) {
				t.Errorf("%s lists dependent %s that does not name it", uid, d.identity.UID)
			}
		}
		for _, ref := range n.owners {
			if owner, ok := g.nodes[ref.UID]; ok {
				if _, linked := owner.dependents[n]; !linked {
					t.Errorf("%s names owner %s but is not its dependent", uid, ref.UID)
				}
			}
		}
		if n.virtual && (len(n.owners) > 0 || len(n.dependents) == 0) {
			t.Errorf("virtual node %s has owners or no dependents", uid)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestReferencesDiffs(t *testing.T) {
	a := ownerRef("ReplicaSet", "a", "a", true)
	aUnblocked := ownerRef("ReplicaSet", "a", "a", false)
	b := ownerRef("ReplicaSet", "b", "b", true)
	c := ownerRef("ReplicaSet", "c", "c", true)
	tests := []struct {
		name           string
		old, new       []api.OwnerReference
		added, removed []string
		changed        []string
	}{
		{name: "no change", old: []api.OwnerReference{a, b}, new: []api.OwnerReference{a, b}},
		{name: "added and removed", old: []api.OwnerReference{a, b}, new: []api.OwnerReference{b, c}, added: []string{"c"}, removed: []string{"a"}},
		{name: "changed", old: []api.OwnerReference{a}, new: []api.OwnerReference{aUnblocked}, changed: []string{"a"}},
		{name: "all removed", old: []api.OwnerReference{a, b}, removed: []string{"a", "b"}},
	}
	uids := func(refs []api.OwnerReference) []string {
		var out []string
		for _, r := range refs {
			out = append(out, r.UID)
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			added, removed, changed := referencesDiffs(tt.old, tt.new)
			var changedUIDs []string
			for _, c := range changed {
				changedUIDs = append(changedUIDs, c.new.UID)
			}
			if !slices.Equal(uids(added), tt.added) || !slices.Equal(uids(removed), tt.removed) || !slices.Equal(changedUIDs, tt.changed) {
				t.Fatalf("got added %v removed %v changed %v, want %v %v %v", uids(added), uids(removed), changedUIDs, tt.added, tt.removed, tt.changed)
			}
		})
	}
}

func TestViewMarksBlockingDependents(t *testing.T) {
	g := newGraph(newRESTMapper())
	g.observe(rsID(), nil, metaFor(rsID()))
	g.observe(podID("p1"), nil, metaFor(podID("p1"), rsRef(true)))
	g.observe(podID("p2"), nil, metaFor(podID("p2"), rsRef(false)))
	g.observe(podID("p3"), nil, deleting(metaFor(podID("p3"), rsRef(true)), "example.com/hold"))
	v, ok := g.view("rs-uid")
	if !ok {
		t.Fatal("no view of the owner")
	}
	var blocking []string
	for _, d := range blockingDependents(v.dependents) {
		blocking = append(blocking, d.identity.Name)
	}
	// p3 is being deleted but still exists: it still blocks.
	if want := []string{"p1", "p3"}; !slices.Equal(blocking, want) {
		t.Fatalf("blocking dependents = %v, want %v", blocking, want)
	}
}
