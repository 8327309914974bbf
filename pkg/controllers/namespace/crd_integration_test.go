package namespace_test

import (
	"context"
	"fmt"
	"testing"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// Namespace deletion on a real apiserver that serves a CRD: the
// namespace's custom objects are deleted with it, and the namespace goes.

var (
	crdResource    = client.Resource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition"}
	gizmosResource = client.Resource{Group: "lifecycle.example.com", Version: "v1", Resource: "gizmos", Kind: "Gizmo", Namespaced: true}
)

func TestIntegrationNamespaceDeletionRemovesCustomObjects(t *testing.T) {
	a := framework.StartAPIServer(t)
	c := a.Client(t, nil)
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
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "shop"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gizmos := c.Dynamic(gizmosResource)
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		_, err := gizmos.Create(ctx, map[string]any{"apiVersion": "lifecycle.example.com/v1", "kind": "Gizmo",
			"metadata": map[string]any{"name": "g", "namespace": "shop"}}, client.CreateOptions{})
		return err == nil, fmt.Sprintf("create gizmo: %v", err)
	})
	if _, err := gizmos.Create(ctx, map[string]any{"apiVersion": "lifecycle.example.com/v1", "kind": "Gizmo",
		"metadata": map[string]any{"name": "g", "namespace": "default"}}, client.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	startController(t, a)

	if err := c.Namespaces().Delete(ctx, "shop", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		_, err := c.Namespaces().Get(ctx, "shop", client.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprintf("namespace shop: %v", err)
	})
	if _, err := gizmos.Namespace("shop").Get(ctx, "g", client.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("gizmo shop/g after its namespace went: %v, want NotFound", err)
	}
	if _, err := gizmos.Namespace("default").Get(ctx, "g", client.GetOptions{}); err != nil {
		t.Errorf("gizmo default/g was deleted with namespace shop: %v", err)
	}
}
