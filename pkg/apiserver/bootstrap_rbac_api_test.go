package apiserver_test

import (
	"context"
	"slices"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/authorization/bootstrappolicy"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// The apiserver stores the whole bootstrap policy at first start; at the
// next start it adds back a rule removed from an autoupdate role and a
// deleted binding, keeps what an administrator added, and leaves an object
// annotated autoupdate=false as the administrator wrote it.
func TestBootstrapPolicyReconciledAtStart(t *testing.T) {
	dir := t.TempDir()
	a := framework.StartAPIServerIn(t, dir)
	c := a.Client(t, nil)
	ctx := context.Background()

	roles, err := c.ClusterRoles().List(ctx, client.ListOptions{LabelSelector: bootstrappolicy.BootstrappingLabel + "=" + bootstrappolicy.BootstrappingValue})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(roles.Items), len(bootstrappolicy.ClusterRoles()); got != want {
		t.Fatalf("first start stored %d bootstrap ClusterRoles, want %d", got, want)
	}
	for _, name := range []string{"system:controller:replicaset-controller", "cluster-admin"} {
		if _, err := c.ClusterRoleBindings().Get(ctx, name, client.GetOptions{}); err != nil {
			t.Fatalf("binding %s: %v", name, err)
		}
	}
	untouched, err := c.ClusterRoles().Get(ctx, "system:controller:replicaset-controller", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Roles("kube-system").Get(ctx, "extension-apiserver-authentication-reader", client.GetOptions{}); err != nil {
		t.Fatalf("kube-system Role: %v", err)
	}

	// Break the policy: take the pods rule out of system:aggregate-to-view
	// while adding a rule of our own, delete the cluster-admin binding,
	// and change the protected edit-aggregate role.
	view, err := c.ClusterRoles().Get(ctx, "system:aggregate-to-view", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	podsRule := view.Rules[0]
	ours := api.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}
	view.Rules = append(slices.Clone(view.Rules[1:]), ours)
	if _, err := c.ClusterRoles().Update(ctx, view, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.ClusterRoleBindings().Delete(ctx, "cluster-admin", client.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	edit, err := c.ClusterRoles().Get(ctx, "system:aggregate-to-edit", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	edit.Annotations[bootstrappolicy.AutoUpdateAnnotation] = "false"
	edit.Rules = edit.Rules[:1]
	if _, err := c.ClusterRoles().Update(ctx, edit, client.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	a.Stop()
	a = framework.StartAPIServerIn(t, dir)
	c = a.Client(t, nil)

	again, err := c.ClusterRoles().Get(ctx, untouched.Name, client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.ResourceVersion != untouched.ResourceVersion {
		t.Errorf("an unchanged role was rewritten at restart: resourceVersion %s → %s", untouched.ResourceVersion, again.ResourceVersion)
	}
	view, err = c.ClusterRoles().Get(ctx, "system:aggregate-to-view", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bootstrappolicy.Covers(view.Rules, podsRule) {
		t.Errorf("after restart system:aggregate-to-view lacks the removed rule %+v; rules %+v", podsRule, view.Rules)
	}
	if !bootstrappolicy.Covers(view.Rules, ours) {
		t.Errorf("after restart system:aggregate-to-view lost the administrator's rule %+v", ours)
	}
	binding, err := c.ClusterRoleBindings().Get(ctx, "cluster-admin", client.GetOptions{})
	if err != nil {
		t.Fatalf("cluster-admin binding after restart: %v", err)
	}
	if len(binding.Subjects) != 1 || binding.Subjects[0].Name != "system:masters" {
		t.Errorf("cluster-admin binding subjects = %+v, want the group system:masters", binding.Subjects)
	}
	edit, err = c.ClusterRoles().Get(ctx, "system:aggregate-to-edit", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(edit.Rules) != 1 {
		t.Errorf("protected system:aggregate-to-edit has %d rules after restart, want the administrator's 1", len(edit.Rules))
	}
}
