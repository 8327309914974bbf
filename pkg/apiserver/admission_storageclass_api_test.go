package apiserver_test

import (
	"context"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// A claim created without storageClassName gets the default class's name
// once one is marked; a claim that asks for no class ("") or names one
// keeps its choice; an invalid class is refused with upstream's Status.
func TestDefaultStorageClassAdmission(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	ctx := context.Background()
	claims := c.PersistentVolumeClaims("default")
	newClaim := func(name string, class *string) *api.PersistentVolumeClaim {
		return &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.PersistentVolumeClaimSpec{
			AccessModes:      []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			StorageClassName: class,
			Resources:        api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParseQuantity("1Gi")}},
		}}
	}
	className := func(claim *api.PersistentVolumeClaim) string {
		if claim.Spec.StorageClassName == nil {
			return "<nil>"
		}
		return *claim.Spec.StorageClassName
	}

	bad := &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "bad"}}
	if _, err := c.StorageClasses().Create(ctx, bad, client.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("class without a provisioner: err = %v, want Invalid", err)
	}

	if _, err := c.StorageClasses().Create(ctx, &api.StorageClass{
		ObjectMeta:  api.ObjectMeta{Name: "gold", Annotations: map[string]string{api.AnnDefaultStorageClass: "true"}},
		Provisioner: "kplane.io/hostpath",
	}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The plugin reads the watch cache, as upstream reads an informer's:
	// wait until the new default shows.
	deadline := time.Now().Add(5 * time.Second)
	var got *api.PersistentVolumeClaim
	for i := 0; ; i++ {
		var err error
		got, err = claims.Create(ctx, newClaim("data-"+string(rune('a'+i)), nil), client.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if className(got) == "gold" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if className(got) != "gold" {
		t.Fatalf("claim without a class got class %s, want gold", className(got))
	}

	empty := ""
	none, err := claims.Create(ctx, newClaim("no-class", &empty), client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if className(none) != "" {
		t.Errorf(`claim asking for no class ("") got %s`, className(none))
	}
	fast := "fast"
	named, err := claims.Create(ctx, newClaim("fast", &fast), client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if className(named) != "fast" {
		t.Errorf("claim naming class fast got %s", className(named))
	}
}
