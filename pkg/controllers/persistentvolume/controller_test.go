package persistentvolume

import (
	"context"
	"log/slog"
	"slices"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// These tests follow sample-controller's fixture pattern: objects go into
// the fake apiserver and the informers' caches (fakeapi's Put), one sync
// runs, and the test lists the API writes the controller made, in order
// (ExpectActions), and checks what they sent.

// fixture is a controller built on a fakeapi server.
type fixture struct {
	server *fakeapi.Server
	ctrl   *Controller
	events *events.FakeRecorder
}

// newFixture builds the controller and puts objs in the apiserver and the
// caches.
func newFixture(t *testing.T, objs ...api.Object) *fixture {
	t.Helper()
	server := fakeapi.New(t)
	rec := &events.FakeRecorder{}
	ctrl, err := New(server.Client(), server.Informers(), rec, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.claimQueue.ShutDown)
	t.Cleanup(ctrl.volumeQueue.ShutDown)
	server.Put(t, objs...)
	return &fixture{server: server, ctrl: ctrl, events: rec}
}

func (f *fixture) syncClaim(t *testing.T, key string) {
	t.Helper()
	if err := f.ctrl.syncClaimKey(context.Background(), key); err != nil {
		t.Fatalf("sync claim %s: %v", key, err)
	}
}

func (f *fixture) syncVolume(t *testing.T, name string) {
	t.Helper()
	if err := f.ctrl.syncVolumeKey(context.Background(), name); err != nil {
		t.Fatalf("sync volume %s: %v", name, err)
	}
}

// expectEvents fails unless the events recorded were exactly want.
func (f *fixture) expectEvents(t *testing.T, want ...string) {
	t.Helper()
	if got := f.events.Events(); !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
}

// gets counts the GETs the server received: the live lookups of claims
// missing from the cache.
func (f *fixture) gets() int {
	n := 0
	for _, a := range f.server.Actions() {
		if a.Verb == fakeapi.VerbGet {
			n++
		}
	}
	return n
}

// bindWrites are the four writes of a binding of claim to pv, in order.
func bindWrites(pv, claim string) []string {
	return []string{
		"update persistentvolumes " + pv,
		"update persistentvolumes/status " + pv,
		"update persistentvolumeclaims " + claim,
		"update persistentvolumeclaims/status " + claim,
	}
}

// A Pending claim binds to the smallest volume that fits: the volume points
// at the claim (with its UID) and is Bound; the claim names the volume, is
// Bound, and reports the volume's capacity and access modes; both carry
// upstream's annotations.
func TestSyncClaimBindsSmallestFit(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi"), testVolume("big", "5Gi"), testVolume("small", "2Gi"), testVolume("tiny", "500Mi"))
	f.syncClaim(t, "default/data")
	f.server.ExpectActions(t, bindWrites("small", "data")...)

	pv := fakeapi.Sent[*api.PersistentVolume](t, f.server, "update persistentvolumes small")
	if ref := pv.Spec.ClaimRef; ref == nil || ref.Kind != "PersistentVolumeClaim" || ref.Namespace != "default" || ref.Name != "data" || ref.UID != "uid-data" {
		t.Errorf("claimRef %+v, want default/data with uid-data", pv.Spec.ClaimRef)
	}
	if pv.Annotations[annBoundByController] != "yes" {
		t.Errorf("volume annotations %v, want %s", pv.Annotations, annBoundByController)
	}
	if status := fakeapi.Sent[*api.PersistentVolume](t, f.server, "update persistentvolumes/status small"); status.Status.Phase != api.VolumeBound || status.Status.LastPhaseTransitionTime == nil {
		t.Errorf("volume status %+v, want Bound with a transition time", status.Status)
	}
	claim := fakeapi.Sent[*api.PersistentVolumeClaim](t, f.server, "update persistentvolumeclaims data")
	if claim.Spec.VolumeName != "small" || claim.Annotations[annBindCompleted] != "yes" || claim.Annotations[annBoundByController] != "yes" {
		t.Errorf("claim volumeName %q annotations %v", claim.Spec.VolumeName, claim.Annotations)
	}
	status := fakeapi.Sent[*api.PersistentVolumeClaim](t, f.server, "update persistentvolumeclaims/status data").Status
	size := status.Capacity[api.ResourceStorage]
	if status.Phase != api.ClaimBound || size.String() != "2Gi" || !slices.Equal(status.AccessModes, []api.PersistentVolumeAccessMode{api.ReadWriteOnce}) {
		t.Errorf("claim status %+v, want Bound with 2Gi RWO", status)
	}
	f.expectEvents(t)
	d := controllertest.ExpectDecision(t, f.server.Decisions("default/data"),
		`claim wants 1Gi [ReadWriteOnce], class "": 2 of 3 volumes fit → bind to small (the closest fit: fewest access modes, then least storage, then name)`,
		map[string]string{"requested": "1Gi", "volumes": "3", "fit": "2"})
	if want := []string{
		`big (5Gi [ReadWriteOnce] class ""): fits`,
		`small (2Gi [ReadWriteOnce] class ""): fits`,
		`tiny (500Mi [ReadWriteOnce] class ""): requested PV is too small`,
	}; !slices.Equal(d.Lines, want) {
		t.Errorf("decision lines\n%q\nwant\n%q", d.Lines, want)
	}
	controllertest.ExpectNoDecision(t, f.server.Decisions("small")) // the volume's own sync decides nothing here
}

// Both ends already bound: a sync of either writes nothing.
func TestSyncOfBoundPairWritesNothing(t *testing.T) {
	pv := testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"), boundByController, volumePhase(api.VolumeBound))
	f := newFixture(t, testClaim("data", "1Gi", boundTo("pv001", "1Gi")), pv)
	f.syncClaim(t, "default/data")
	f.syncVolume(t, "pv001")
	f.server.ExpectActions(t)
}

// No volume fits a claim without a class: it stays Pending, with upstream's
// FailedBinding event.
func TestSyncClaimWithoutVolume(t *testing.T) {
	f := newFixture(t, testClaim("data", "10Gi"), testVolume("small", "1Gi"))
	f.syncClaim(t, "default/data")
	f.server.ExpectActions(t)
	f.expectEvents(t, "Normal FailedBinding no persistent volumes available for this claim and no storage class is set")
	controllertest.ExpectDecision(t, f.server.Decisions("default/data"),
		`claim wants 10Gi [ReadWriteOnce], class "": 0 of 1 volumes fit → no storage class to provision one → stay Pending`,
		map[string]string{"fit": "0"})
}

// A claim of a class that does not exist and no volume of it stays
// Pending with upstream's warning.
func TestSyncClaimWithClassWithoutVolume(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi", claimClassName("fast")), testVolume("plain", "1Gi"))
	f.syncClaim(t, "default/data")
	f.server.ExpectActions(t)
	f.expectEvents(t, `Warning ProvisioningFailed storageclass.storage.k8s.io "fast" not found`)
}

// A claim that names a volume gets that one, not the closest fit; the
// claim's own choice is not marked bound-by-controller, the volume is.
func TestSyncClaimWithVolumeName(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi", volumeName("big")), testVolume("big", "5Gi"), testVolume("small", "1Gi"))
	f.syncClaim(t, "default/data")
	f.server.ExpectActions(t, bindWrites("big", "data")...)
	if pv := fakeapi.Sent[*api.PersistentVolume](t, f.server, "update persistentvolumes big"); pv.Annotations[annBoundByController] != "yes" {
		t.Errorf("volume annotations %v, want %s", pv.Annotations, annBoundByController)
	}
	claim := fakeapi.Sent[*api.PersistentVolumeClaim](t, f.server, "update persistentvolumeclaims data")
	if _, ok := claim.Annotations[annBoundByController]; ok || claim.Annotations[annBindCompleted] != "yes" {
		t.Errorf("claim annotations %v, want only %s", claim.Annotations, annBindCompleted)
	}
}

// A claim that names a volume too small for it stays Pending, told why.
func TestSyncClaimWithVolumeNameThatDoesNotFit(t *testing.T) {
	f := newFixture(t, testClaim("data", "2Gi", volumeName("small")), testVolume("small", "1Gi"))
	f.syncClaim(t, "default/data")
	f.server.ExpectActions(t)
	f.expectEvents(t, `Warning VolumeMismatch Cannot bind to requested volume "small": requested PV is too small`)
}

// A claim that names a volume another claim holds waits, Pending.
func TestSyncClaimWithVolumeNameOfBusyVolume(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi", volumeName("pv")),
		testVolume("pv", "1Gi", claimRefTo("default", "other", "uid-other"), volumePhase(api.VolumeBound)))
	f.syncClaim(t, "default/data")
	f.server.ExpectActions(t)
}

// A volume an admin pre-bound to a claim by name is bound to it: its
// claimRef gains the claim's UID, and no bound-by-controller annotation (the
// admin chose).
func TestSyncClaimTakesPreBoundVolume(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi"), testVolume("free", "1Gi"),
		testVolume("reserved", "3Gi", claimRefTo("default", "data", "")))
	f.syncClaim(t, "default/data")
	f.server.ExpectActions(t, bindWrites("reserved", "data")...)
	pv := fakeapi.Sent[*api.PersistentVolume](t, f.server, "update persistentvolumes reserved")
	if pv.Spec.ClaimRef.UID != "uid-data" {
		t.Errorf("claimRef %+v, want the claim's UID", pv.Spec.ClaimRef)
	}
	if _, ok := pv.Annotations[annBoundByController]; ok {
		t.Errorf("pre-bound volume got %s", annBoundByController)
	}
}

// A half-done binding (the volume points at the claim, the claim not yet
// back) is finished by the claim's sync without touching the volume's spec.
func TestSyncClaimFinishesHalfDoneBinding(t *testing.T) {
	pv := testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"), boundByController, volumePhase(api.VolumeBound))
	f := newFixture(t, testClaim("data", "1Gi"), pv)
	f.syncClaim(t, "default/data")
	f.server.ExpectActions(t, "update persistentvolumeclaims data", "update persistentvolumeclaims/status data")
}

// A bound claim whose volume was deleted is Lost, told once.
func TestSyncBoundClaimLosesVolume(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi", boundTo("pv001", "1Gi")))
	f.syncClaim(t, "default/data")
	f.server.ExpectActions(t, "update persistentvolumeclaims/status data")
	status := fakeapi.Sent[*api.PersistentVolumeClaim](t, f.server, "update persistentvolumeclaims/status data").Status
	if status.Phase != api.ClaimLost || status.Capacity != nil || status.AccessModes != nil {
		t.Errorf("claim status %+v, want Lost without capacity", status)
	}
	f.expectEvents(t, "Warning ClaimLost Bound claim has lost its PersistentVolume. Data on the volume is lost!")
}

// A new volume the controller has not seen is Pending; its first sync makes
// it Available.
func TestSyncVolumeMakesNewVolumeAvailable(t *testing.T) {
	f := newFixture(t, testVolume("pv001", "1Gi", volumePhase(api.VolumePending)))
	f.syncVolume(t, "pv001")
	f.server.ExpectActions(t, "update persistentvolumes/status pv001")
	if pv := fakeapi.Sent[*api.PersistentVolume](t, f.server, "update persistentvolumes/status pv001"); pv.Status.Phase != api.VolumeAvailable {
		t.Errorf("phase %q, want Available", pv.Status.Phase)
	}
}

// A volume whose claim points back at it is Bound.
func TestSyncVolumeBound(t *testing.T) {
	pv := testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"), volumePhase(api.VolumeAvailable))
	f := newFixture(t, testClaim("data", "1Gi", boundTo("pv001", "1Gi")), pv)
	f.syncVolume(t, "pv001")
	f.server.ExpectActions(t, "update persistentvolumes/status pv001")
	if got := fakeapi.Sent[*api.PersistentVolume](t, f.server, "update persistentvolumes/status pv001"); got.Status.Phase != api.VolumeBound {
		t.Errorf("phase %q, want Bound", got.Status.Phase)
	}
}

// When its claim is deleted a Retain volume is Released and stays, still
// naming the claim; so does a Recycle volume (kplane treats Recycle as
// Retain). The claim is looked up on the apiserver first, in case the cache
// only lags.
func TestSyncVolumeReleasedWhenClaimDeleted(t *testing.T) {
	for _, policy := range []api.PersistentVolumeReclaimPolicy{api.PersistentVolumeReclaimRetain, api.PersistentVolumeReclaimRecycle} {
		t.Run(string(policy), func(t *testing.T) {
			f := newFixture(t, testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"), boundByController,
				volumePhase(api.VolumeBound), reclaimPolicy(policy)))
			f.syncVolume(t, "pv001")
			f.server.ExpectActions(t, "update persistentvolumes/status pv001")
			pv := fakeapi.Sent[*api.PersistentVolume](t, f.server, "update persistentvolumes/status pv001")
			if pv.Status.Phase != api.VolumeReleased || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Name != "data" {
				t.Errorf("volume phase %q claimRef %+v, want Released still naming data", pv.Status.Phase, pv.Spec.ClaimRef)
			}
			if gets := f.gets(); gets != 1 {
				t.Errorf("%d GETs, want one live lookup of the claim", gets)
			}
			// A second sync (the cache now shows the volume Released)
			// changes nothing.
			f.server.Put(t, fakeapi.Result[*api.PersistentVolume](t, f.server, "update persistentvolumes/status pv001"))
			f.syncVolume(t, "pv001")
			f.server.ExpectActions(t)
		})
	}
}

// A claim of the same name but a new UID is not the volume's claim: the
// volume is Released all the same (a StatefulSet recreating a deleted
// claim does not get the old volume back).
func TestSyncVolumeReleasedWhenClaimRecreated(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi", func(c *api.PersistentVolumeClaim) { c.UID = "uid-new" }),
		testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"), volumePhase(api.VolumeBound)))
	f.syncVolume(t, "pv001")
	f.server.ExpectActions(t, "update persistentvolumes/status pv001")
}

// A claim the cache has not seen yet but the apiserver has keeps its
// volume: nothing is released.
func TestSyncVolumeTrustsAPIServerOverStaleCache(t *testing.T) {
	f := newFixture(t, testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"), volumePhase(api.VolumeBound)))
	f.server.Add(t, testClaim("data", "1Gi", boundTo("pv001", "1Gi"))) // in the apiserver, not yet in the cache
	f.syncVolume(t, "pv001")
	f.server.ExpectActions(t)
}

// A released volume with policy Delete is deleted, with its UID as a
// precondition so that a new volume of the same name is safe.
func TestSyncVolumeDeletePolicy(t *testing.T) {
	f := newFixture(t, testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"),
		volumePhase(api.VolumeBound), reclaimPolicy(api.PersistentVolumeReclaimDelete)))
	f.syncVolume(t, "pv001")
	f.server.ExpectActions(t, "update persistentvolumes/status pv001", "delete persistentvolumes pv001")
	controllertest.ExpectDecision(t, f.server.Decisions("pv001"),
		"claim default/data is gone → Released; persistentVolumeReclaimPolicy Delete → delete the PersistentVolume",
		map[string]string{"reclaimPolicy": "Delete"})
	opts := fakeapi.Sent[api.DeleteOptions](t, f.server, "delete persistentvolumes pv001")
	if opts.Preconditions == nil || opts.Preconditions.UID == nil || *opts.Preconditions.UID != "uid-pv001" {
		t.Errorf("delete options %+v, want the volume's UID as precondition", opts)
	}
	if _, ok := fakeapi.Get[*api.PersistentVolume](t, f.server, "", "pv001"); ok {
		t.Error("pv001 is still stored after its delete")
	}
}

// A volume the controller bound to a claim that ended up bound to another
// volume is given back: claimRef and annotation removed, Available. A
// volume the user pre-bound keeps its claim name and loses only the UID.
func TestSyncVolumeUnbindsWhenClaimBoundElsewhere(t *testing.T) {
	claim := testClaim("data", "1Gi", boundTo("other", "1Gi"))
	t.Run("bound by the controller", func(t *testing.T) {
		f := newFixture(t, claim, testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"), boundByController, volumePhase(api.VolumeBound)))
		f.syncVolume(t, "pv001")
		f.server.ExpectActions(t, "update persistentvolumes pv001", "update persistentvolumes/status pv001")
		if pv := fakeapi.Sent[*api.PersistentVolume](t, f.server, "update persistentvolumes pv001"); pv.Spec.ClaimRef != nil || pv.Annotations != nil {
			t.Errorf("claimRef %+v annotations %v, want both gone", pv.Spec.ClaimRef, pv.Annotations)
		}
		if pv := fakeapi.Sent[*api.PersistentVolume](t, f.server, "update persistentvolumes/status pv001"); pv.Status.Phase != api.VolumeAvailable {
			t.Errorf("phase %q, want Available", pv.Status.Phase)
		}
	})
	t.Run("pre-bound by the user", func(t *testing.T) {
		f := newFixture(t, claim, testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"), volumePhase(api.VolumeBound)))
		f.syncVolume(t, "pv001")
		f.server.ExpectActions(t, "update persistentvolumes pv001", "update persistentvolumes/status pv001")
		if ref := fakeapi.Sent[*api.PersistentVolume](t, f.server, "update persistentvolumes pv001").Spec.ClaimRef; ref == nil || ref.Name != "data" || ref.UID != "" {
			t.Errorf("claimRef %+v, want default/data without UID", ref)
		}
	})
}

// The handlers: a deleted claim queues its volume, a deleted volume its
// claim, and a volume without a claimRef the claims that wait for one.
func TestHandlersQueueTheOtherEnd(t *testing.T) {
	f := newFixture(t, testClaim("waiting", "1Gi"), testClaim("bound", "1Gi", boundTo("pv001", "1Gi")))
	drain := func(q interface {
		Len() int
		Get() (string, bool)
		Done(string)
	}) []string {
		var keys []string
		for q.Len() > 0 {
			k, _ := q.Get()
			keys = append(keys, k)
			q.Done(k)
		}
		slices.Sort(keys)
		return keys
	}

	f.ctrl.deleteClaim(informer.DeletedFinalStateUnknown{Key: "default/bound", Obj: testClaim("bound", "1Gi", boundTo("pv001", "1Gi"))})
	if got := drain(f.ctrl.volumeQueue); !slices.Equal(got, []string{"pv001"}) {
		t.Errorf("claim deletion queued volumes %v, want [pv001]", got)
	}
	f.ctrl.deleteVolume(testVolume("pv001", "1Gi", claimRefTo("default", "bound", "uid-bound")))
	if got := drain(f.ctrl.claimQueue); !slices.Equal(got, []string{"default/bound"}) {
		t.Errorf("volume deletion queued claims %v, want [default/bound]", got)
	}
	f.ctrl.addVolume(testVolume("pv002", "1Gi"))
	if got := drain(f.ctrl.claimQueue); !slices.Equal(got, []string{"default/waiting"}) {
		t.Errorf("a free volume queued claims %v, want the waiting one", got)
	}
	if got := drain(f.ctrl.volumeQueue); !slices.Equal(got, []string{"pv002"}) {
		t.Errorf("a new volume queued volumes %v, want [pv002]", got)
	}
}

func testStorageClass(name, provisioner string, mode api.VolumeBindingMode) *api.StorageClass {
	return &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: name}, Provisioner: provisioner, VolumeBindingMode: &mode}
}

// A claim of an Immediate class with no volume of it is handed to the
// class's provisioner (both annotations, as upstream writes them) and
// stays Pending, with upstream's ExternalProvisioning event; a second
// sync hands nothing over again.
func TestSyncClaimHandsClaimToProvisioner(t *testing.T) {
	f := newFixture(t, testStorageClass("fast", "kplane.io/hostpath", api.VolumeBindingImmediate),
		testClaim("data", "1Gi", claimClassName("fast")), testVolume("plain", "1Gi"))
	f.syncClaim(t, "default/data")
	f.server.ExpectActions(t, "update persistentvolumeclaims data")
	claim := fakeapi.Sent[api.PersistentVolumeClaim](t, f.server, "update persistentvolumeclaims data")
	for _, key := range []string{"volume.kubernetes.io/storage-provisioner", "volume.beta.kubernetes.io/storage-provisioner"} {
		if claim.Annotations[key] != "kplane.io/hostpath" {
			t.Errorf("annotation %s = %q, want kplane.io/hostpath", key, claim.Annotations[key])
		}
	}
	f.expectEvents(t, "Normal ExternalProvisioning Waiting for a volume to be created either by the external provisioner 'kplane.io/hostpath' "+
		"or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.")

	stored, _ := fakeapi.Get[*api.PersistentVolumeClaim](t, f.server, "default", "data")
	f.server.Put(t, stored)
	f.syncClaim(t, "default/data")
	f.server.ExpectActions(t)
}

// A claim of a WaitForFirstConsumer class waits for the scheduler's
// selected-node before it is handed over.
func TestSyncClaimWaitsForFirstConsumer(t *testing.T) {
	placed := testClaim("placed", "1Gi", claimClassName("standard"))
	placed.Annotations = map[string]string{"volume.kubernetes.io/selected-node": "node1"}
	f := newFixture(t, testStorageClass("standard", "kplane.io/hostpath", api.VolumeBindingWaitForFirstConsumer),
		testClaim("data", "1Gi", claimClassName("standard")), placed)
	f.syncClaim(t, "default/data")
	f.server.ExpectActions(t)
	f.expectEvents(t, "Normal WaitForFirstConsumer waiting for first consumer to be created before binding")
	controllertest.ExpectDecision(t, f.server.Decisions("default/data"),
		`claim wants 1Gi [ReadWriteOnce], class "standard": 0 of 0 volumes fit → class "standard" binds WaitForFirstConsumer and no pod using the claim is scheduled yet → wait, Pending`, nil)

	f.syncClaim(t, "default/placed")
	f.server.ExpectActions(t, "update persistentvolumeclaims placed")
}
