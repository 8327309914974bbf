package persistentvolume

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/events"
	"kplane/pkg/informer"
)

// These tests follow sample-controller's fixture pattern: objects go into
// the informers' caches by hand, one sync runs, and the test compares the
// API requests the controller made with the expected ones. The apiserver
// is an httptest server that records each request and accepts it.

// action is one request the controller sent.
type action struct {
	verb, path string
	body       []byte
}

func (a action) String() string { return a.verb + " " + a.path }

// fakeAPI records requests. Writes are accepted and echoed back; GETs
// answer from objects (by path), or 404.
type fakeAPI struct {
	mu      sync.Mutex
	actions []action
	objects map[string]any // path → object a GET returns
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.actions = append(f.actions, action{verb: r.Method, path: r.URL.Path, body: body})
	obj, found := f.objects[r.URL.Path]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch r.Method {
	case http.MethodGet:
		if !found {
			w.WriteHeader(http.StatusNotFound)
			_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"%s not found"}`, r.URL.Path)
			return
		}
		_ = json.NewEncoder(w).Encode(obj)
	case http.MethodDelete:
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Success"}`))
	default:
		_, _ = w.Write(body)
	}
}

// writes returns the recorded requests other than GETs (the live lookups
// of claims missing from the cache).
func (f *fakeAPI) writes() []action {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(f.actions), func(a action) bool { return a.verb == http.MethodGet })
}

// gets counts the GETs recorded: the live lookups of claims.
func (f *fakeAPI) gets() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, a := range f.actions {
		if a.verb == http.MethodGet {
			n++
		}
	}
	return n
}

// fixture is a controller whose caches the test fills and whose client
// talks to a fakeAPI.
type fixture struct {
	api     *fakeAPI
	ctrl    *Controller
	events  *events.FakeRecorder
	volumes informer.Indexer
	claims  informer.Indexer
}

func newFixture(t *testing.T, objs ...api.Object) *fixture {
	t.Helper()
	fake := &fakeAPI{objects: map[string]any{}}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	c, err := client.New(&client.Config{Host: srv.URL, MaxRetries: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	factory := informer.NewSharedInformerFactory(c, 0)
	rec := &events.FakeRecorder{}
	ctrl, err := New(c, factory, rec, Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.claimQueue.ShutDown)
	t.Cleanup(ctrl.volumeQueue.ShutDown)
	f := &fixture{api: fake, ctrl: ctrl, events: rec,
		volumes: factory.PersistentVolumes().Informer().GetIndexer(),
		claims:  factory.PersistentVolumeClaims().Informer().GetIndexer()}
	for _, obj := range objs {
		var err error
		switch obj.(type) {
		case *api.PersistentVolume:
			err = f.volumes.Add(obj)
		case *api.PersistentVolumeClaim:
			err = f.claims.Add(obj)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return f
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

// expectWrites fails unless the writes made were exactly want ("VERB path").
func (f *fixture) expectWrites(t *testing.T, want ...string) []action {
	t.Helper()
	got := f.api.writes()
	var gotStrings []string
	for _, a := range got {
		gotStrings = append(gotStrings, a.String())
	}
	if !slices.Equal(gotStrings, want) {
		t.Fatalf("writes:\n  %s\nwant:\n  %s", strings.Join(gotStrings, "\n  "), strings.Join(want, "\n  "))
	}
	return got
}

// expectEvents fails unless the events recorded were exactly want.
func (f *fixture) expectEvents(t *testing.T, want ...string) {
	t.Helper()
	if got := f.events.Events(); !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
}

func decode[T any](t *testing.T, a action) *T {
	t.Helper()
	var obj T
	if err := json.Unmarshal(a.body, &obj); err != nil {
		t.Fatalf("decode %s body: %v", a, err)
	}
	return &obj
}

// The request paths the tests expect.
const (
	claimsPath  = "/api/v1/namespaces/default/persistentvolumeclaims/"
	volumesPath = "/api/v1/persistentvolumes/"
)

// bindWrites are the four writes of a binding of claim to pv, in order.
func bindWrites(pv, claim string) []string {
	return []string{
		"PUT " + volumesPath + pv,
		"PUT " + volumesPath + pv + "/status",
		"PUT " + claimsPath + claim,
		"PUT " + claimsPath + claim + "/status",
	}
}

// A Pending claim binds to the smallest volume that fits: the volume points
// at the claim (with its UID) and is Bound; the claim names the volume, is
// Bound, and reports the volume's capacity and access modes; both carry
// upstream's annotations.
func TestSyncClaimBindsSmallestFit(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi"), testVolume("big", "5Gi"), testVolume("small", "2Gi"), testVolume("tiny", "500Mi"))
	f.syncClaim(t, "default/data")
	writes := f.expectWrites(t, bindWrites("small", "data")...)

	pv := decode[api.PersistentVolume](t, writes[0])
	if ref := pv.Spec.ClaimRef; ref == nil || ref.Kind != "PersistentVolumeClaim" || ref.Namespace != "default" || ref.Name != "data" || ref.UID != "uid-data" {
		t.Errorf("claimRef %+v, want default/data with uid-data", pv.Spec.ClaimRef)
	}
	if pv.Annotations[annBoundByController] != "yes" {
		t.Errorf("volume annotations %v, want %s", pv.Annotations, annBoundByController)
	}
	if status := decode[api.PersistentVolume](t, writes[1]); status.Status.Phase != api.VolumeBound || status.Status.LastPhaseTransitionTime == nil {
		t.Errorf("volume status %+v, want Bound with a transition time", status.Status)
	}
	claim := decode[api.PersistentVolumeClaim](t, writes[2])
	if claim.Spec.VolumeName != "small" || claim.Annotations[annBindCompleted] != "yes" || claim.Annotations[annBoundByController] != "yes" {
		t.Errorf("claim volumeName %q annotations %v", claim.Spec.VolumeName, claim.Annotations)
	}
	status := decode[api.PersistentVolumeClaim](t, writes[3]).Status
	size := status.Capacity[api.ResourceStorage]
	if status.Phase != api.ClaimBound || size.String() != "2Gi" || !slices.Equal(status.AccessModes, []api.PersistentVolumeAccessMode{api.ReadWriteOnce}) {
		t.Errorf("claim status %+v, want Bound with 2Gi RWO", status)
	}
	f.expectEvents(t)
}

// Both ends already bound: a sync of either writes nothing.
func TestSyncOfBoundPairWritesNothing(t *testing.T) {
	pv := testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"), boundByController, volumePhase(api.VolumeBound))
	f := newFixture(t, testClaim("data", "1Gi", boundTo("pv001", "1Gi")), pv)
	f.syncClaim(t, "default/data")
	f.syncVolume(t, "pv001")
	f.expectWrites(t)
}

// No volume fits a claim without a class: it stays Pending, with upstream's
// FailedBinding event.
func TestSyncClaimWithoutVolume(t *testing.T) {
	f := newFixture(t, testClaim("data", "10Gi"), testVolume("small", "1Gi"))
	f.syncClaim(t, "default/data")
	f.expectWrites(t)
	f.expectEvents(t, "Normal FailedBinding no persistent volumes available for this claim and no storage class is set")
}

// A claim with a class and no volume of it would be provisioned upstream;
// kplane serves no StorageClass, so provisioning fails as for a missing
// class.
func TestSyncClaimWithClassWithoutVolume(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi", claimClassName("fast")), testVolume("plain", "1Gi"))
	f.syncClaim(t, "default/data")
	f.expectWrites(t)
	f.expectEvents(t, `Warning ProvisioningFailed storageclass.storage.k8s.io "fast" not found`)
}

// A claim that names a volume gets that one, not the closest fit; the
// claim's own choice is not marked bound-by-controller, the volume is.
func TestSyncClaimWithVolumeName(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi", volumeName("big")), testVolume("big", "5Gi"), testVolume("small", "1Gi"))
	f.syncClaim(t, "default/data")
	writes := f.expectWrites(t, bindWrites("big", "data")...)
	if pv := decode[api.PersistentVolume](t, writes[0]); pv.Annotations[annBoundByController] != "yes" {
		t.Errorf("volume annotations %v, want %s", pv.Annotations, annBoundByController)
	}
	claim := decode[api.PersistentVolumeClaim](t, writes[2])
	if _, ok := claim.Annotations[annBoundByController]; ok || claim.Annotations[annBindCompleted] != "yes" {
		t.Errorf("claim annotations %v, want only %s", claim.Annotations, annBindCompleted)
	}
}

// A claim that names a volume too small for it stays Pending, told why.
func TestSyncClaimWithVolumeNameThatDoesNotFit(t *testing.T) {
	f := newFixture(t, testClaim("data", "2Gi", volumeName("small")), testVolume("small", "1Gi"))
	f.syncClaim(t, "default/data")
	f.expectWrites(t)
	f.expectEvents(t, `Warning VolumeMismatch Cannot bind to requested volume "small": requested PV is too small`)
}

// A claim that names a volume another claim holds waits, Pending.
func TestSyncClaimWithVolumeNameOfBusyVolume(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi", volumeName("pv")),
		testVolume("pv", "1Gi", claimRefTo("default", "other", "uid-other"), volumePhase(api.VolumeBound)))
	f.syncClaim(t, "default/data")
	f.expectWrites(t)
}

// A volume an admin pre-bound to a claim by name is bound to it: its
// claimRef gains the claim's UID, and no bound-by-controller annotation (the
// admin chose).
func TestSyncClaimTakesPreBoundVolume(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi"), testVolume("free", "1Gi"),
		testVolume("reserved", "3Gi", claimRefTo("default", "data", "")))
	f.syncClaim(t, "default/data")
	writes := f.expectWrites(t, bindWrites("reserved", "data")...)
	pv := decode[api.PersistentVolume](t, writes[0])
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
	f.expectWrites(t, "PUT "+claimsPath+"data", "PUT "+claimsPath+"data/status")
}

// A bound claim whose volume was deleted is Lost, told once.
func TestSyncBoundClaimLosesVolume(t *testing.T) {
	f := newFixture(t, testClaim("data", "1Gi", boundTo("pv001", "1Gi")))
	f.syncClaim(t, "default/data")
	writes := f.expectWrites(t, "PUT "+claimsPath+"data/status")
	status := decode[api.PersistentVolumeClaim](t, writes[0]).Status
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
	writes := f.expectWrites(t, "PUT "+volumesPath+"pv001/status")
	if pv := decode[api.PersistentVolume](t, writes[0]); pv.Status.Phase != api.VolumeAvailable {
		t.Errorf("phase %q, want Available", pv.Status.Phase)
	}
}

// A volume whose claim points back at it is Bound.
func TestSyncVolumeBound(t *testing.T) {
	pv := testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"), volumePhase(api.VolumeAvailable))
	f := newFixture(t, testClaim("data", "1Gi", boundTo("pv001", "1Gi")), pv)
	f.syncVolume(t, "pv001")
	writes := f.expectWrites(t, "PUT "+volumesPath+"pv001/status")
	if got := decode[api.PersistentVolume](t, writes[0]); got.Status.Phase != api.VolumeBound {
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
			writes := f.expectWrites(t, "PUT "+volumesPath+"pv001/status")
			pv := decode[api.PersistentVolume](t, writes[0])
			if pv.Status.Phase != api.VolumeReleased || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Name != "data" {
				t.Errorf("volume phase %q claimRef %+v, want Released still naming data", pv.Status.Phase, pv.Spec.ClaimRef)
			}
			if gets := f.api.gets(); gets != 1 {
				t.Errorf("%d GETs, want one live lookup of the claim", gets)
			}
			// A second sync (the volume now Released) changes nothing.
			if err := f.volumes.Update(pv); err != nil {
				t.Fatal(err)
			}
			f.syncVolume(t, "pv001")
			f.expectWrites(t, "PUT "+volumesPath+"pv001/status")
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
	f.expectWrites(t, "PUT "+volumesPath+"pv001/status")
}

// A claim the cache has not seen yet but the apiserver has keeps its
// volume: nothing is released.
func TestSyncVolumeTrustsAPIServerOverStaleCache(t *testing.T) {
	f := newFixture(t, testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"), volumePhase(api.VolumeBound)))
	f.api.objects[claimsPath+"data"] = testClaim("data", "1Gi", boundTo("pv001", "1Gi"))
	f.syncVolume(t, "pv001")
	f.expectWrites(t)
}

// A released volume with policy Delete is deleted, with its UID as a
// precondition so that a new volume of the same name is safe.
func TestSyncVolumeDeletePolicy(t *testing.T) {
	f := newFixture(t, testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"),
		volumePhase(api.VolumeBound), reclaimPolicy(api.PersistentVolumeReclaimDelete)))
	f.syncVolume(t, "pv001")
	writes := f.expectWrites(t, "PUT "+volumesPath+"pv001/status", "DELETE "+volumesPath+"pv001")
	opts := decode[api.DeleteOptions](t, writes[1])
	if opts.Preconditions == nil || opts.Preconditions.UID == nil || *opts.Preconditions.UID != "uid-pv001" {
		t.Errorf("delete options %+v, want the volume's UID as precondition", opts)
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
		writes := f.expectWrites(t, "PUT "+volumesPath+"pv001", "PUT "+volumesPath+"pv001/status")
		if pv := decode[api.PersistentVolume](t, writes[0]); pv.Spec.ClaimRef != nil || pv.Annotations != nil {
			t.Errorf("claimRef %+v annotations %v, want both gone", pv.Spec.ClaimRef, pv.Annotations)
		}
		if pv := decode[api.PersistentVolume](t, writes[1]); pv.Status.Phase != api.VolumeAvailable {
			t.Errorf("phase %q, want Available", pv.Status.Phase)
		}
	})
	t.Run("pre-bound by the user", func(t *testing.T) {
		f := newFixture(t, claim, testVolume("pv001", "1Gi", claimRefTo("default", "data", "uid-data"), volumePhase(api.VolumeBound)))
		f.syncVolume(t, "pv001")
		writes := f.expectWrites(t, "PUT "+volumesPath+"pv001", "PUT "+volumesPath+"pv001/status")
		if ref := decode[api.PersistentVolume](t, writes[0]).Spec.ClaimRef; ref == nil || ref.Name != "data" || ref.UID != "" {
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
