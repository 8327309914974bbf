package persistentvolume_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/controllers/persistentvolume"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

func TestMain(m *testing.M) { framework.Main(m) }

const waitTimeout = 15 * time.Second

// eventSource is the source.component of the controller's events, as the
// controller-manager sets it.
const eventSource = "persistentvolume-controller"

// startController runs the binder in-process against a, recording real
// Events.
func startController(t *testing.T, a *framework.APIServer) *client.Client {
	t.Helper()
	c := a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "persistentvolume-binder-test" })
	controllertest.RunController(t, c, eventSource, 1, func(f *informer.SharedInformerFactory, rec events.EventRecorder, logger *slog.Logger) (*persistentvolume.Controller, error) {
		return persistentvolume.New(c, f, rec, persistentvolume.Options{Logger: logger})
	})
	return c
}

// createVolume creates a hostPath volume of size with access mode RWO and
// the given reclaim policy ("" for the default, Retain).
func createVolume(t *testing.T, c *client.Client, name, size string, policy api.PersistentVolumeReclaimPolicy) {
	t.Helper()
	pv := &api.PersistentVolume{
		ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.PersistentVolumeSpec{
			Capacity:                      api.ResourceList{api.ResourceStorage: api.MustParseQuantity(size)},
			PersistentVolumeSource:        api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/tmp/" + name}},
			AccessModes:                   []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: policy,
		},
	}
	if _, err := c.PersistentVolumes().Create(context.Background(), pv, client.CreateOptions{}); err != nil {
		t.Fatalf("create volume %s: %v", name, err)
	}
}

// createClaim creates claim default/name asking for size with RWO.
func createClaim(t *testing.T, c *client.Client, name, size string) {
	t.Helper()
	claim := &api.PersistentVolumeClaim{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.PersistentVolumeClaimSpec{
			AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParseQuantity(size)}},
		},
	}
	if _, err := c.PersistentVolumeClaims("default").Create(context.Background(), claim, client.CreateOptions{}); err != nil {
		t.Fatalf("create claim %s: %v", name, err)
	}
}

// volumeState is a volume as `kubectl get pv` summarises it: phase and
// claim.
func volumeState(pv *api.PersistentVolume) string {
	claim := ""
	if ref := pv.Spec.ClaimRef; ref != nil {
		claim = ref.Namespace + "/" + ref.Name
	}
	return fmt.Sprintf("%s %s", pv.Status.Phase, claim)
}

// waitVolume waits until volume name is in state want (see volumeState).
func waitVolume(t *testing.T, c *client.Client, name, want string) *api.PersistentVolume {
	t.Helper()
	var pv *api.PersistentVolume
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		got, err := c.PersistentVolumes().Get(context.Background(), name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		pv = got
		return volumeState(got) == want, fmt.Sprintf("volume %s is %q, want %q", name, volumeState(got), want)
	})
	return pv
}

// waitClaimBound waits until claim default/name is Bound to volume and
// reports size, and returns it.
func waitClaimBound(t *testing.T, c *client.Client, name, volume, size string) *api.PersistentVolumeClaim {
	t.Helper()
	var claim *api.PersistentVolumeClaim
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		got, err := c.PersistentVolumeClaims("default").Get(context.Background(), name, client.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		claim = got
		capacity := got.Status.Capacity[api.ResourceStorage]
		state := fmt.Sprintf("%s %s %s", got.Status.Phase, got.Spec.VolumeName, capacity.String())
		want := fmt.Sprintf("Bound %s %s", volume, size)
		return state == want, fmt.Sprintf("claim %s is %q, want %q", name, state, want)
	})
	return claim
}

// The seed's flow against a real apiserver: two equal volumes, then two
// claims; each claim binds to its own volume, in order. Deleting a claim
// releases its volume (Retain keeps it), the other binding stays.
func TestBindAndRelease(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := startController(t, a)
	ctx := context.Background()

	createVolume(t, c, "pv001", "1Gi", "")
	createVolume(t, c, "pv002", "1Gi", "")
	waitVolume(t, c, "pv001", "Available ")
	waitVolume(t, c, "pv002", "Available ")

	createClaim(t, c, "vol-web-0", "1Gi")
	claim0 := waitClaimBound(t, c, "vol-web-0", "pv001", "1Gi")
	createClaim(t, c, "vol-web-1", "1Gi")
	waitClaimBound(t, c, "vol-web-1", "pv002", "1Gi")

	pv := waitVolume(t, c, "pv001", "Bound default/vol-web-0")
	if pv.Spec.ClaimRef.UID != claim0.UID || pv.Annotations["pv.kubernetes.io/bound-by-controller"] != "yes" {
		t.Errorf("pv001 claimRef %+v annotations %v", pv.Spec.ClaimRef, pv.Annotations)
	}
	if claim0.Annotations["pv.kubernetes.io/bind-completed"] != "yes" || claim0.Annotations["pv.kubernetes.io/bound-by-controller"] != "yes" {
		t.Errorf("claim annotations %v", claim0.Annotations)
	}

	if err := c.PersistentVolumeClaims("default").Delete(ctx, "vol-web-0", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitVolume(t, c, "pv001", "Released default/vol-web-0")
	waitVolume(t, c, "pv002", "Bound default/vol-web-1")

	// A new claim of the same name does not get the released volume back.
	createClaim(t, c, "vol-web-0", "1Gi")
	controllertest.WaitForEvent(t, c, waitTimeout, controllertest.EventMatch{Namespace: "default", Component: eventSource,
		Kind: "PersistentVolumeClaim", Name: "vol-web-0", Reason: "FailedBinding",
		Message: "no persistent volumes available for this claim and no storage class is set"})
	waitVolume(t, c, "pv001", "Released default/vol-web-0")
}

// A claim that waits for a volume binds as soon as a fitting one is
// created, without waiting for the resync.
func TestClaimWaitsForVolume(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := startController(t, a)

	createClaim(t, c, "data", "2Gi")
	controllertest.WaitForEvent(t, c, waitTimeout, controllertest.EventMatch{Namespace: "default", Component: eventSource,
		Name: "data", Reason: "FailedBinding"})
	createVolume(t, c, "small", "1Gi", "")
	createVolume(t, c, "big", "5Gi", "")
	start := time.Now()
	waitClaimBound(t, c, "data", "big", "5Gi")
	if took := time.Since(start); took >= persistentvolume.DefaultResyncPeriod {
		t.Errorf("binding took %v: the claim waited for the resync", took)
	}
	waitVolume(t, c, "small", "Available ")
}

// A volume with reclaim policy Delete goes with its claim; the claim of a
// volume deleted by hand is Lost.
func TestDeletePolicyAndLostClaim(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := startController(t, a)
	ctx := context.Background()

	createVolume(t, c, "scratch", "1Gi", api.PersistentVolumeReclaimDelete)
	createClaim(t, c, "tmp", "1Gi")
	waitClaimBound(t, c, "tmp", "scratch", "1Gi")
	if err := c.PersistentVolumeClaims("default").Delete(ctx, "tmp", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		pv, err := c.PersistentVolumes().Get(ctx, "scratch", client.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, ""
		}
		if err != nil {
			return false, err.Error()
		}
		return false, "volume scratch still there: " + volumeState(pv)
	})

	createVolume(t, c, "kept", "1Gi", "")
	createClaim(t, c, "data", "1Gi")
	waitClaimBound(t, c, "data", "kept", "1Gi")
	if err := c.PersistentVolumes().Delete(ctx, "kept", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	controllertest.WaitForEvent(t, c, waitTimeout, controllertest.EventMatch{Namespace: "default", Component: eventSource,
		Name: "data", Reason: "ClaimLost", Message: "Bound claim has lost its PersistentVolume. Data on the volume is lost!"})
	claim, err := c.PersistentVolumeClaims("default").Get(ctx, "data", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if claim.Status.Phase != api.ClaimLost {
		t.Errorf("claim phase %q, want Lost", claim.Status.Phase)
	}
}
