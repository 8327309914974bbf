package ctl

import (
	"context"
	"errors"
	"testing"

	"kplane/pkg/restmapper"
)

// TestEtcdArgsMapKindsToTheApiserversKeys: kinds, short names and groups
// resolve by discovery to the keys the apiserver stores objects under.
func TestEtcdArgsMapKindsToTheApiserversKeys(t *testing.T) {
	m := restmapper.New([]restmapper.APIResource{
		{Version: "v1", Name: "configmaps", SingularName: "configmap", Kind: "ConfigMap", ShortNames: []string{"cm"}, Namespaced: true, Preferred: true},
		{Version: "v1", Name: "nodes", SingularName: "node", Kind: "Node", ShortNames: []string{"no"}, Preferred: true},
		{Group: "apps", Version: "v1", Name: "deployments", SingularName: "deployment", Kind: "Deployment", ShortNames: []string{"deploy"}, Namespaced: true, Preferred: true},
	})
	discovered := 0
	args := etcdArgs{namespace: "team", mapper: func(context.Context) (*restmapper.Mapper, error) {
		discovered++
		return m, nil
	}}
	ctx := context.Background()

	for arg, want := range map[string]string{
		"configmap/app":                   "/registry/configmaps/team/app",
		"cm/app":                          "/registry/configmaps/team/app",
		"ConfigMap/app":                   "/registry/configmaps/team/app",
		"deployments.apps/web":            "/registry/deployments/team/web",
		"deploy/web":                      "/registry/deployments/team/web",
		"node/node1":                      "/registry/nodes/node1",
		"/registry/configmaps/team/other": "/registry/configmaps/team/other",
	} {
		got, err := args.key(ctx, arg)
		if err != nil || got != want {
			t.Errorf("key(%q) = %q, %v; want %q", arg, got, err, want)
		}
	}
	for _, bad := range []string{"configmaps", "cm/", "cm/a/b", "widgets/x"} {
		if got, err := args.key(ctx, bad); err == nil {
			t.Errorf("key(%q) = %q, want an error", bad, got)
		}
	}

	for arg, want := range map[string]string{
		"":                       "/registry/",
		"configmaps":             "/registry/configmaps/team/",
		"nodes":                  "/registry/nodes/",
		"cm/app":                 "/registry/configmaps/team/app",
		"/registry/deployments/": "/registry/deployments/",
	} {
		got, err := args.prefix(ctx, arg)
		if err != nil || got != want {
			t.Errorf("prefix(%q) = %q, %v; want %q", arg, got, err, want)
		}
	}
	args.allNamespaces = true
	if got, _ := args.prefix(ctx, "cm"); got != "/registry/configmaps/" {
		t.Errorf("prefix(cm) with -A = %q, want /registry/configmaps/", got)
	}

	discovered = 0
	if _, err := args.key(ctx, "/registry/x"); err != nil || discovered != 0 {
		t.Errorf("a literal key read discovery %d times (%v); it needs none", discovered, err)
	}
}

// TestEtcdArgsKeepCustomResourcesUnderTheirGroup: a kind a
// CustomResourceDefinition serves is stored under /registry/<group>/<plural>/
// (upstream's apiextensions-apiserver layout), a built-in kind of a named
// group under its plural alone; the CRD is asked about only for a group.
func TestEtcdArgsKeepCustomResourcesUnderTheirGroup(t *testing.T) {
	m := restmapper.New([]restmapper.APIResource{
		{Group: "examples.kplane.dev", Version: "v1alpha1", Name: "websites", SingularName: "website", Kind: "Website", ShortNames: []string{"ws"}, Namespaced: true, Preferred: true},
		{Group: "apps", Version: "v1", Name: "deployments", SingularName: "deployment", Kind: "Deployment", ShortNames: []string{"deploy"}, Namespaced: true, Preferred: true},
		{Version: "v1", Name: "configmaps", SingularName: "configmap", Kind: "ConfigMap", Namespaced: true, Preferred: true},
	})
	var asked []string
	args := etcdArgs{namespace: "default",
		mapper: func(context.Context) (*restmapper.Mapper, error) { return m, nil },
		isCustom: func(_ context.Context, r restmapper.APIResource) (bool, error) {
			asked = append(asked, r.Name+"."+r.Group)
			return r.Group == "examples.kplane.dev", nil
		}}
	ctx := context.Background()
	for arg, want := range map[string]string{
		"website/hello": "/registry/examples.kplane.dev/websites/default/hello",
		"ws/hello":      "/registry/examples.kplane.dev/websites/default/hello",
		"deploy/web":    "/registry/deployments/default/web",
		"configmap/app": "/registry/configmaps/default/app",
	} {
		if got, err := args.key(ctx, arg); err != nil || got != want {
			t.Errorf("key(%q) = %q, %v; want %q", arg, got, err, want)
		}
	}
	if got, err := args.prefix(ctx, "websites"); err != nil || got != "/registry/examples.kplane.dev/websites/default/" {
		t.Errorf("prefix(websites) = %q, %v; want /registry/examples.kplane.dev/websites/default/", got, err)
	}
	for _, name := range asked {
		if name == "configmaps." {
			t.Errorf("asked whether the core group's configmaps are custom: the core group has no CRDs")
		}
	}

	// A failed look-up is an error, not a guess at the layout.
	args.isCustom = func(context.Context, restmapper.APIResource) (bool, error) {
		return false, errors.New("connection refused")
	}
	if got, err := args.key(ctx, "website/hello"); err == nil {
		t.Errorf("key(website/hello) with the CRD look-up failing = %q, want an error", got)
	}
}
