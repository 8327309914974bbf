package hostpathprovisioner

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/events"
	"kplane/test/framework/controllertest"
	"kplane/test/framework/fakeapi"
)

// These tests follow sample-controller's fixture pattern: objects go into
// the fake apiserver and the informers' caches, one sync runs, and the
// test lists every API write it made, in order (ExpectActions), and the
// Events it recorded.

type fixture struct {
	server     *fakeapi.Server
	recorder   *events.FakeRecorder
	controller *Controller
	dir        string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	server := fakeapi.New(t)
	recorder := &events.FakeRecorder{}
	dir := t.TempDir()
	ctrl, err := New(server.Client(), server.Informers(), recorder, Options{Logger: slog.New(slog.DiscardHandler), VolumesDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctrl.claimQueue.ShutDown)
	t.Cleanup(ctrl.volumeQueue.ShutDown)
	return &fixture{server: server, recorder: recorder, controller: ctrl, dir: dir}
}

func storageClass(name, provisioner string, mode api.VolumeBindingMode) *api.StorageClass {
	reclaim := api.PersistentVolumeReclaimDelete
	return &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: name}, Provisioner: provisioner,
		ReclaimPolicy: &reclaim, VolumeBindingMode: &mode}
}

// handedOver is a claim of class the binder has handed to provisioner.
func handedOver(name, class, provisioner string) *api.PersistentVolumeClaim {
	return &api.PersistentVolumeClaim{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name, ResourceVersion: "7",
			Annotations: map[string]string{api.AnnStorageProvisioner: provisioner}},
		Spec: api.PersistentVolumeClaimSpec{
			AccessModes:      []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			StorageClassName: &class,
			Resources:        api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParseQuantity("1Gi")}},
		},
		Status: api.PersistentVolumeClaimStatus{Phase: api.ClaimPending},
	}
}

func withNode(claim *api.PersistentVolumeClaim, node string) *api.PersistentVolumeClaim {
	claim.Annotations[api.AnnSelectedNode] = node
	return claim
}

func expectEvents(t *testing.T, recorder *events.FakeRecorder, want ...string) {
	t.Helper()
	if got := recorder.Events(); !slices.Equal(got, want) {
		t.Errorf("events:\n got  %q\n want %q", got, want)
	}
}

// An Immediate claim handed to kplane.io/hostpath gets its volume at
// once: a directory under the volumes dir and a PV pvc-<uid>, pre-bound to
// the claim, with the class's policy and no node affinity.
func TestSyncClaimProvisionsImmediateClaim(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, storageClass("fast", ProvisionerName, api.VolumeBindingImmediate), handedOver("data", "fast", ProvisionerName))

	if err := f.controller.syncClaim(context.Background(), "default/data"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, "create persistentvolumes pvc-uid-data")
	expectEvents(t, f.recorder,
		`Normal Provisioning External provisioner is provisioning volume for claim "default/data"`,
		"Normal ProvisioningSucceeded Successfully provisioned volume pvc-uid-data")

	pv := fakeapi.Sent[api.PersistentVolume](t, f.server, "create persistentvolumes pvc-uid-data")
	wantPath := filepath.Join(f.dir, "pvc-uid-data")
	if pv.Spec.HostPath == nil || pv.Spec.HostPath.Path != wantPath {
		t.Errorf("hostPath = %+v, want %s", pv.Spec.HostPath, wantPath)
	}
	if ref := pv.Spec.ClaimRef; ref == nil || ref.Namespace != "default" || ref.Name != "data" || ref.UID != "uid-data" {
		t.Errorf("claimRef = %+v, want default/data with its uid", ref)
	}
	size := pv.Spec.Capacity[api.ResourceStorage]
	if pv.Spec.StorageClassName != "fast" || pv.Spec.PersistentVolumeReclaimPolicy != api.PersistentVolumeReclaimDelete ||
		size.String() != "1Gi" || pv.Spec.NodeAffinity != nil {
		t.Errorf("volume spec = class %q, policy %q, size %s, node affinity %+v; want fast, Delete, 1Gi, none",
			pv.Spec.StorageClassName, pv.Spec.PersistentVolumeReclaimPolicy, size.String(), pv.Spec.NodeAffinity)
	}
	if pv.Annotations[AnnProvisionedBy] != ProvisionerName || !slices.Contains(pv.Finalizers, FinalizerVolume) {
		t.Errorf("metadata = annotations %v, finalizers %v; want provisioned-by and the finalizer", pv.Annotations, pv.Finalizers)
	}
	if fi, err := os.Stat(wantPath); err != nil || !fi.IsDir() || fi.Mode().Perm() != volumeDirMode {
		t.Errorf("volume directory: %v, %v; want a directory with mode %o", fi, err, volumeDirMode)
	}
	controllertest.ExpectDecision(t, f.server.Decisions("default/data"),
		"claim handed to kplane.io/hostpath, class fast, wants 1Gi → make volume pvc-uid-data, directory "+wantPath+", usable on any node",
		map[string]string{"volume": "pvc-uid-data", "requested": "1Gi", "node": ""})
}

// A WaitForFirstConsumer claim waits for the scheduler's choice, then
// gets a volume pinned to that node.
func TestSyncClaimWaitsForFirstConsumer(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, storageClass("standard", ProvisionerName, api.VolumeBindingWaitForFirstConsumer),
		handedOver("waiting", "standard", ProvisionerName),
		withNode(handedOver("placed", "standard", ProvisionerName), "node2"))

	if err := f.controller.syncClaim(context.Background(), "default/waiting"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t)
	expectEvents(t, f.recorder)
	controllertest.ExpectDecision(t, f.server.Decisions("default/waiting"),
		"class standard binds WaitForFirstConsumer and the claim has no volume.kubernetes.io/selected-node annotation yet → wait for the scheduler to place its first pod", nil)

	if err := f.controller.syncClaim(context.Background(), "default/placed"); err != nil {
		t.Fatal(err)
	}
	f.server.ExpectActions(t, "create persistentvolumes pvc-uid-placed")
	pv := fakeapi.Sent[api.PersistentVolume](t, f.server, "create persistentvolumes pvc-uid-placed")
	affinity := pv.Spec.NodeAffinity
	if affinity == nil || affinity.Required == nil || len(affinity.Required.NodeSelectorTerms) != 1 {
		t.Fatalf("node affinity = %+v, want one term for node2", affinity)
	}
	req := affinity.Required.NodeSelectorTerms[0].MatchExpressions
	if len(req) != 1 || req[0].Key != api.LabelHostname || req[0].Operator != api.NodeSelectorOpIn || !slices.Equal(req[0].Values, []string{"node2"}) {
		t.Errorf("node affinity = %+v, want kubernetes.io/hostname In [node2]", req)
	}
}

// Claims that are not this provisioner's, or need nothing, cause no write.
func TestSyncClaimLeavesOthersAlone(t *testing.T) {
	bound := handedOver("bound", "fast", ProvisionerName)
	bound.Spec.VolumeName = "pv1"
	deleting := handedOver("deleting", "fast", ProvisionerName)
	deleting.DeletionTimestamp = &api.Time{Time: time.Now()}
	unmarked := handedOver("unmarked", "fast", ProvisionerName)
	unmarked.Annotations = nil
	made := handedOver("made", "fast", ProvisionerName)
	tests := []struct {
		name  string
		claim *api.PersistentVolumeClaim
		extra []api.Object
	}{
		{"another provisioner's claim", handedOver("ebs", "fast", "ebs.csi.aws.com"), nil},
		{"class of another provisioner", handedOver("other", "gp3", ProvisionerName), []api.Object{storageClass("gp3", "ebs.csi.aws.com", api.VolumeBindingImmediate)}},
		{"bound claim", bound, nil},
		{"claim being deleted", deleting, nil},
		{"claim not handed over by the binder", unmarked, nil},
		{"volume made already", made, []api.Object{&api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: "pvc-uid-made"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.server.Put(t, append([]api.Object{storageClass("fast", ProvisionerName, api.VolumeBindingImmediate), tt.claim}, tt.extra...)...)
			if err := f.controller.syncClaim(context.Background(), "default/"+tt.claim.Name); err != nil {
				t.Fatal(err)
			}
			f.server.ExpectActions(t)
			expectEvents(t, f.recorder)
		})
	}
}

// A claim whose class does not exist gets upstream's warning and is
// retried.
func TestSyncClaimMissingClass(t *testing.T) {
	f := newFixture(t)
	f.server.Put(t, handedOver("data", "gone", ProvisionerName))
	if err := f.controller.syncClaim(context.Background(), "default/data"); err == nil {
		t.Fatal("sync succeeded, want an error so the claim is retried")
	}
	f.server.ExpectActions(t)
	expectEvents(t, f.recorder, `Warning ProvisioningFailed storageclass.storage.k8s.io "gone" not found`)
}

func provisioned(name, path string, policy api.PersistentVolumeReclaimPolicy, deleting bool) *api.PersistentVolume {
	pv := &api.PersistentVolume{
		ObjectMeta: api.ObjectMeta{Name: name, Annotations: map[string]string{AnnProvisionedBy: ProvisionerName},
			Finalizers: []string{"kubernetes.io/pv-protection", FinalizerVolume}},
		Spec: api.PersistentVolumeSpec{PersistentVolumeReclaimPolicy: policy,
			PersistentVolumeSource: api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{Path: path}}},
	}
	if deleting {
		pv.DeletionTimestamp = &api.Time{Time: time.Now()}
	}
	return pv
}

// A deleted Delete volume loses its directory, then the finalizer; a
// Retain volume keeps its data; a path outside the volumes dir is never
// removed.
func TestSyncVolume(t *testing.T) {
	tests := []struct {
		name        string
		policy      api.PersistentVolumeReclaimPolicy
		deleting    bool
		outside     bool
		wantActions []string
		wantDirGone bool
	}{
		{"deleted Delete volume", api.PersistentVolumeReclaimDelete, true, false, []string{"update persistentvolumes pvc-1"}, true},
		{"deleted Retain volume keeps its data", api.PersistentVolumeReclaimRetain, true, false, []string{"update persistentvolumes pvc-1"}, false},
		{"path outside the volumes dir", api.PersistentVolumeReclaimDelete, true, true, []string{"update persistentvolumes pvc-1"}, false},
		{"volume not being deleted", api.PersistentVolumeReclaimDelete, false, false, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			dir := filepath.Join(f.dir, "pvc-1")
			if tt.outside {
				dir = filepath.Join(t.TempDir(), "pvc-1")
			}
			if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
				t.Fatal(err)
			}
			f.server.Put(t, provisioned("pvc-1", dir, tt.policy, tt.deleting))
			if err := f.controller.syncVolume(context.Background(), "pvc-1"); err != nil {
				t.Fatal(err)
			}
			f.server.ExpectActions(t, tt.wantActions...)
			if len(tt.wantActions) > 0 {
				pv := fakeapi.Sent[api.PersistentVolume](t, f.server, "update persistentvolumes pvc-1")
				if !slices.Equal(pv.Finalizers, []string{"kubernetes.io/pv-protection"}) {
					t.Errorf("finalizers after the sync = %v, want only pv-protection left", pv.Finalizers)
				}
			}
			_, err := os.Stat(dir)
			if gone := os.IsNotExist(err); gone != tt.wantDirGone {
				t.Errorf("directory gone = %v (stat: %v), want %v", gone, err, tt.wantDirGone)
			}
			decisions := f.server.Decisions("pvc-1")
			switch {
			case !tt.deleting:
				controllertest.ExpectNoDecision(t, decisions)
			case tt.wantDirGone:
				controllertest.ExpectDecision(t, decisions, "volume pvc-1 is being deleted, persistentVolumeReclaimPolicy Delete → remove its directory "+dir+
					", then remove finalizer "+FinalizerVolume, nil)
			default:
				controllertest.ExpectDecision(t, decisions, "", nil)
			}
		})
	}
}
