package plugins

import (
	"context"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/test/framework/fakeapi"
)

// delayedBinding is a VolumeBinding over a fakeapi server holding a
// WaitForFirstConsumer class "standard" and an Immediate class "fast".
func delayedBinding(t *testing.T, objects ...api.Object) (*VolumeBinding, *fakeapi.Server) {
	t.Helper()
	server := fakeapi.New(t)
	informers := server.Informers()
	pl := NewVolumeBinding(informers.PersistentVolumeClaims().Lister(), informers.PersistentVolumes().Lister(),
		informers.StorageClasses().Lister(), server.Client())
	pl.pollInterval = time.Millisecond
	wait, now := api.VolumeBindingWaitForFirstConsumer, api.VolumeBindingImmediate
	server.Put(t, append([]api.Object{
		&api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "standard"}, Provisioner: "kplane.io/hostpath", VolumeBindingMode: &wait},
		&api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "fast"}, Provisioner: "kplane.io/hostpath", VolumeBindingMode: &now},
	}, objects...)...)
	return pl, server
}

func ofClass(class string) func(*api.PersistentVolumeClaim) {
	return func(c *api.PersistentVolumeClaim) { c.Spec.StorageClassName = &class }
}

// An unbound claim of a WaitForFirstConsumer class does not keep its pod
// off the nodes; one of an Immediate class still does.
func TestVolumeBindingPreFilterDelaysWaitForFirstConsumerClaims(t *testing.T) {
	pl, _ := delayedBinding(t, claim("late", ofClass("standard")), claim("now", ofClass("fast")))
	if got := verdict(pl.PreFilter(info(pod("", "", withClaims("late"))))); got != "" {
		t.Errorf("PreFilter of a pod with a delayed claim = %q, want success", got)
	}
	want := "UnschedulableAndUnresolvable: " + ErrReasonUnboundImmediateClaims
	if got := verdict(pl.PreFilter(info(pod("", "", withClaims("late", "now"))))); got != want {
		t.Errorf("PreFilter with an unbound Immediate claim = %q, want %q", got, want)
	}
}

// PreBind writes the chosen node on the delayed claim and waits for the
// claim to be bound: it gives up after BindTimeout while the claim stays
// unbound, and succeeds, writing nothing more, once it is bound.
func TestVolumeBindingPreBindSelectsNodeAndWaits(t *testing.T) {
	pl, server := delayedBinding(t, claim("late", ofClass("standard")))
	pl.BindTimeout = 20 * time.Millisecond
	p := info(pod("", "", withClaims("late")))
	if got := verdict(pl.PreFilter(p)); got != "" {
		t.Fatalf("PreFilter = %q, want success", got)
	}

	want := `Error: binding volumes: timed out waiting for persistentvolumeclaim "late" to be bound`
	if got := verdict(pl.PreBind(context.Background(), p, "node1")); got != want {
		t.Errorf("PreBind of an unbound claim = %q, want %q", got, want)
	}
	server.ExpectActions(t, "update persistentvolumeclaims late")
	sent := fakeapi.Sent[api.PersistentVolumeClaim](t, server, "update persistentvolumeclaims late")
	if sent.Annotations[api.AnnSelectedNode] != "node1" {
		t.Errorf("selected-node = %q, want node1", sent.Annotations[api.AnnSelectedNode])
	}

	bound := claim("late", ofClass("standard"), boundTo("pvc-1"))
	bound.Annotations[api.AnnSelectedNode] = "node1"
	server.Put(t, bound)
	if got := verdict(pl.PreBind(context.Background(), p, "node1")); got != "" {
		t.Errorf("PreBind of a bound claim = %q, want success", got)
	}
	server.ExpectActions(t)
}
