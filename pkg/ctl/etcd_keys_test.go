package ctl

import (
	"context"
	"testing"

	"kplane/pkg/ctl/restmapper"
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
