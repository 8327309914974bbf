package plugins

import (
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/informer"
	"kplane/pkg/scheduler/framework"
)

// volumeListers files claims and volumes in informer caches, as the
// scheduler's informers would hold them.
func volumeListers(t *testing.T, claims []*api.PersistentVolumeClaim, volumes []*api.PersistentVolume) (*informer.Lister[*api.PersistentVolumeClaim], *informer.Lister[*api.PersistentVolume]) {
	t.Helper()
	claimStore := informer.NewIndexer(informer.MetaNamespaceKeyFunc, informer.Indexers{informer.NamespaceIndex: informer.MetaNamespaceIndexFunc})
	for _, c := range claims {
		if err := claimStore.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	volumeStore := informer.NewIndexer(informer.MetaNamespaceKeyFunc, informer.Indexers{})
	for _, v := range volumes {
		if err := volumeStore.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	return informer.NewLister[*api.PersistentVolumeClaim](claimStore, apierrors.Resource{Resource: "persistentvolumeclaims"}),
		informer.NewLister[*api.PersistentVolume](volumeStore, apierrors.Resource{Resource: "persistentvolumes"})
}

// claim builds a claim in namespace default, changed by mutate.
func claim(name string, mutate ...func(*api.PersistentVolumeClaim)) *api.PersistentVolumeClaim {
	c := &api.PersistentVolumeClaim{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Status:     api.PersistentVolumeClaimStatus{Phase: api.ClaimPending},
	}
	for _, m := range mutate {
		m(c)
	}
	return c
}

// boundTo makes a claim bound to volume, as the persistentvolume-binder
// leaves it.
func boundTo(volume string) func(*api.PersistentVolumeClaim) {
	return func(c *api.PersistentVolumeClaim) {
		c.Spec.VolumeName = volume
		c.Annotations = map[string]string{annBindCompleted: "yes"}
		c.Status.Phase = api.ClaimBound
	}
}

// volume builds a PersistentVolume; with zones, only nodes labelled
// zone=<one of them> can reach it.
func volume(name string, zones ...string) *api.PersistentVolume {
	pv := &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: name}}
	if len(zones) > 0 {
		pv.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: zones}},
		}}}}
	}
	return pv
}

// withClaims gives a pod one volume per claim name.
func withClaims(names ...string) func(*api.Pod) {
	return func(p *api.Pod) {
		for _, n := range names {
			p.Spec.Volumes = append(p.Spec.Volumes, api.Volume{Name: "v-" + n, VolumeSource: api.VolumeSource{
				PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: n},
			}})
		}
	}
}

// inZone returns a node labelled zone=zone.
func inZone(name, zone string) *framework.NodeInfo {
	return withNode(node(name, "4", "8Gi", "110"), func(n *api.Node) {
		n.Labels = map[string]string{"zone": zone, "kubernetes.io/hostname": name}
	})
}

func TestVolumeBindingPreFilter(t *testing.T) {
	deleting := func(c *api.PersistentVolumeClaim) { now := api.Now(); c.DeletionTimestamp = &now }
	const unresolvable = "UnschedulableAndUnresolvable: "
	tests := []struct {
		name   string
		claims []*api.PersistentVolumeClaim
		pod    *api.Pod
		want   string
	}{
		{"a pod without claims passes", nil, pod("", "", func(p *api.Pod) {
			p.Spec.Volumes = []api.Volume{{Name: "scratch", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}
		}), ""},
		{"missing claim", nil, pod("", "", withClaims("data")),
			unresolvable + `persistentvolumeclaim "data" not found`},
		{"a claim in another namespace is missing too",
			[]*api.PersistentVolumeClaim{claim("data", func(c *api.PersistentVolumeClaim) { c.Namespace = "other" }, boundTo("pv1"))},
			pod("", "", withClaims("data")), unresolvable + `persistentvolumeclaim "data" not found`},
		{"unbound claim", []*api.PersistentVolumeClaim{claim("data")}, pod("", "", withClaims("data")),
			unresolvable + ErrReasonUnboundImmediateClaims},
		{"a claim naming a volume is unbound until the binder completes it",
			[]*api.PersistentVolumeClaim{claim("data", func(c *api.PersistentVolumeClaim) { c.Spec.VolumeName = "pv1" })},
			pod("", "", withClaims("data")), unresolvable + ErrReasonUnboundImmediateClaims},
		{"claim being deleted", []*api.PersistentVolumeClaim{claim("data", boundTo("pv1"), deleting)},
			pod("", "", withClaims("data")), unresolvable + `persistentvolumeclaim "data" is being deleted`},
		{"lost claim", []*api.PersistentVolumeClaim{claim("data", boundTo("pv1"), func(c *api.PersistentVolumeClaim) { c.Status.Phase = api.ClaimLost })},
			pod("", "", withClaims("data")), unresolvable + `persistentvolumeclaim "data" bound to non-existent persistentvolume "pv1"`},
		{"a missing claim is reported before an unbound one, wherever it is",
			[]*api.PersistentVolumeClaim{claim("first")},
			pod("", "", withClaims("first", "second")), unresolvable + `persistentvolumeclaim "second" not found`},
		{"bound claims pass", []*api.PersistentVolumeClaim{claim("a", boundTo("pv1")), claim("b", boundTo("pv2"))},
			pod("", "", withClaims("a", "b")), ""},
		{"one bound, one unbound", []*api.PersistentVolumeClaim{claim("a", boundTo("pv1")), claim("b")},
			pod("", "", withClaims("a", "b")), unresolvable + ErrReasonUnboundImmediateClaims},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claims, volumes := volumeListers(t, tt.claims, []*api.PersistentVolume{volume("pv1"), volume("pv2")})
			if got := verdict(NewVolumeBinding(claims, volumes, nil, nil).PreFilter(info(tt.pod))); got != tt.want {
				t.Errorf("PreFilter = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVolumeBindingFilter(t *testing.T) {
	const (
		conflict = "UnschedulableAndUnresolvable: " + ErrReasonVolumeNodeConflict
		noVolume = "UnschedulableAndUnresolvable: " + ErrReasonVolumeNotExist
	)
	volumes := []*api.PersistentVolume{volume("anywhere"), volume("in-a", "a"), volume("in-a-or-b", "a", "b"), volume("in-b", "b")}
	tests := []struct {
		name   string
		bound  []string // volumes the pod's claims are bound to, one claim each
		byZone map[string]string
	}{
		{"no node affinity: every node", []string{"anywhere"}, map[string]string{"a": "", "b": "", "c": ""}},
		{"node affinity: only matching nodes", []string{"in-a"}, map[string]string{"a": "", "b": conflict, "c": conflict}},
		{"terms' values are ORed", []string{"in-a-or-b"}, map[string]string{"a": "", "b": "", "c": conflict}},
		{"every volume must be reachable", []string{"in-a", "in-b"}, map[string]string{"a": conflict, "b": conflict}},
		{"a claim bound to a vanished volume fails every node", []string{"gone"}, map[string]string{"a": noVolume, "b": noVolume}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var claims []*api.PersistentVolumeClaim
			var names []string
			for i, v := range tt.bound {
				name := string(rune('p' + i))
				claims = append(claims, claim(name, boundTo(v)))
				names = append(names, name)
			}
			claimLister, volumeLister := volumeListers(t, claims, volumes)
			pl := NewVolumeBinding(claimLister, volumeLister, nil, nil)
			p := info(pod("", "", withClaims(names...)))
			if st := pl.PreFilter(p); !st.IsSuccess() {
				t.Fatalf("PreFilter = %s", verdict(st))
			}
			for zone, want := range tt.byZone {
				if got := verdict(pl.Filter(p, inZone("node-"+zone, zone))); got != want {
					t.Errorf("zone %s: Filter = %q, want %q", zone, got, want)
				}
			}
		})
	}
}

// Filter reads what PreFilter found, not the caches: a volume that
// changes after PreFilter does not change this cycle's answer, and a pod
// PreFilter wrote nothing for (no claims) passes.
func TestVolumeBindingFilterUsesPreFilterState(t *testing.T) {
	volumeStore := informer.NewIndexer(informer.MetaNamespaceKeyFunc, informer.Indexers{})
	claimLister, _ := volumeListers(t, []*api.PersistentVolumeClaim{claim("data", boundTo("in-a"))}, nil)
	pl := NewVolumeBinding(claimLister, informer.NewLister[*api.PersistentVolume](volumeStore, apierrors.Resource{Resource: "persistentvolumes"}), nil, nil)
	pinned := volume("in-a", "a")
	if err := volumeStore.Add(pinned); err != nil {
		t.Fatal(err)
	}
	p := info(pod("", "", withClaims("data")))
	if st := pl.PreFilter(p); !st.IsSuccess() {
		t.Fatalf("PreFilter = %s", verdict(st))
	}
	if err := volumeStore.Delete(pinned); err != nil {
		t.Fatal(err)
	}
	if got := verdict(pl.Filter(p, inZone("n1", "a"))); got != "" {
		t.Errorf("zone a after the volume left the cache: Filter = %q, want Success (this cycle's state)", got)
	}
	if got := verdict(pl.Filter(p, inZone("n2", "b"))); got != "UnschedulableAndUnresolvable: "+ErrReasonVolumeNodeConflict {
		t.Errorf("zone b: Filter = %q, want the node affinity conflict", got)
	}
	if st := pl.Filter(info(pod("", "")), inZone("n1", "b")); !st.IsSuccess() {
		t.Errorf("a pod without claims: Filter = %s, want Success", verdict(st))
	}
}

// A volume's node affinity looks at labels only, as upstream's
// CheckNodeAffinity: a matchFields term on metadata.name matches no node.
func TestVolumeReachableFromLabelsOnly(t *testing.T) {
	pv := volume("pinned")
	pv.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
		MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"n1"}}},
	}}}}
	if volumeReachableFrom(pv, inZone("n1", "a").Node) {
		t.Error("a matchFields term matched; upstream only looks at labels")
	}
	pv.Spec.NodeAffinity.Required.NodeSelectorTerms = []api.NodeSelectorTerm{{
		MatchExpressions: []api.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: api.NodeSelectorOpIn, Values: []string{"n1"}}},
	}}
	if !volumeReachableFrom(pv, inZone("n1", "a").Node) || volumeReachableFrom(pv, inZone("n2", "a").Node) {
		t.Error("the hostname label should pin the volume to n1")
	}
}
