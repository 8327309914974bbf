package garbagecollector

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/pkg/events"
	"kplane/pkg/informer"
	"kplane/test/framework"
	"kplane/test/framework/controllertest"
)

// The collector and custom resources on a real apiserver: a CRD created
// while the collector runs is picked up by the monitor resync, and
// ownerReferences to and from its objects are followed.

var crdResource = client.Resource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition"}

var gizmosResource = client.Resource{Group: "lifecycle.example.com", Version: "v1", Resource: "gizmos", Kind: "Gizmo", Namespaced: true}

// createGizmoCRD creates the gizmos CRD and waits until it is Established,
// skipping the test on an apiserver that does not serve CRDs.
func createGizmoCRD(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := context.Background()
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gizmos.lifecycle.example.com"},
		"spec": map[string]any{
			"group": "lifecycle.example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}
	if _, err := c.Dynamic(crdResource).Create(ctx, crd, client.CreateOptions{}); err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		_, err := c.Dynamic(gizmosResource).Namespace("default").List(ctx, client.ListOptions{})
		return err == nil, fmt.Sprintf("gizmos not served yet: %v", err)
	})
}

func createGizmo(t *testing.T, c *client.Client, name string, owners ...api.OwnerReference) map[string]any {
	t.Helper()
	var refs []any
	for _, o := range owners {
		refs = append(refs, map[string]any{"apiVersion": o.APIVersion, "kind": o.Kind, "name": o.Name, "uid": o.UID})
	}
	obj := map[string]any{"apiVersion": "lifecycle.example.com/v1", "kind": "Gizmo",
		"metadata": map[string]any{"name": name, "namespace": "default", "ownerReferences": refs}, "spec": map[string]any{"size": 1}}
	created, err := c.Dynamic(gizmosResource).Namespace("default").Create(context.Background(), obj, client.CreateOptions{})
	if err != nil {
		t.Fatalf("create gizmo %s: %v", name, err)
	}
	return created
}

func TestIntegrationCollectsThroughCustomResources(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
	controllertest.RunController(t, c, "", 5, func(f *informer.SharedInformerFactory, rec events.EventRecorder, _ *slog.Logger) (*Controller, error) {
		return New(c, f, rec, Options{Logger: controllertest.TestLogger(), ResourceResyncPeriod: 200 * time.Millisecond})
	})
	createGizmoCRD(t, c) // after the collector started: the resync must find it
	ctx := context.Background()

	// A gizmo owned by a ConfigMap goes with it.
	cm, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "owner-cm"}}, client.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	createGizmo(t, c, "owned", api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID})
	// A ConfigMap owned by a gizmo goes with it.
	owner := createGizmo(t, c, "owner")
	ownerMeta, err := metadataOf(owner)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ConfigMaps("default").Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "dependent-cm",
		OwnerReferences: []api.OwnerReference{{APIVersion: "lifecycle.example.com/v1", Kind: "Gizmo", Name: "owner", UID: ownerMeta.UID}}}},
		client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	if err := c.ConfigMaps("default").Delete(ctx, cm.Name, client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Dynamic(gizmosResource).Namespace("default").Delete(ctx, "owner", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		_, err := c.Dynamic(gizmosResource).Namespace("default").Get(ctx, "owned", client.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprintf("gizmo owned by a deleted ConfigMap: %v", err)
	})
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		_, err := c.ConfigMaps("default").Get(ctx, "dependent-cm", client.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprintf("ConfigMap owned by a deleted gizmo: %v", err)
	})
}
