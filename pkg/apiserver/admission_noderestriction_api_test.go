package apiserver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"kplane/pkg/api"
	apierrors "kplane/pkg/api/errors"
	"kplane/pkg/apiserver"
	"kplane/pkg/auth"
	"kplane/pkg/client"
	"kplane/test/framework"
)

// mirrorPodFor is a mirror pod as a kubelet on node creates it.
func mirrorPodFor(name, nodeName, nodeUID string) *api.Pod {
	controller := true
	p := &api.Pod{}
	p.Name, p.Namespace = name, "default"
	p.Annotations = map[string]string{"kubernetes.io/config.mirror": "hash"}
	p.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: nodeName, UID: nodeUID, Controller: &controller}}
	p.Spec.NodeName = nodeName
	p.Spec.Containers = []api.Container{{Name: "c", Image: "busybox"}}
	return p
}

// TestNodeRestriction: a kubelet writes only its own Node, Lease, mirror
// pods and pod statuses, with upstream's messages for the rest.
func TestNodeRestriction(t *testing.T) {
	a, admin := startNodeAuthorized(t)
	kubelet := a.ClientAs(t, auth.NodeUser("node1"), nil)
	ctx := context.Background()

	// Nodes: only its own, without forbidden labels or taint changes.
	node2, err := admin.Nodes().Get(ctx, "node2", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = kubelet.Nodes().Update(ctx, node2, client.UpdateOptions{})
	requireForbidden(t, err, `nodes "node2" is forbidden: node "node1" is not allowed to modify node "node2"`)
	_, err = kubelet.Nodes().UpdateStatus(ctx, node2, client.UpdateOptions{})
	requireForbidden(t, err, `nodes "node2" is forbidden: node "node1" is not allowed to modify node "node2"`)

	node1, err := kubelet.Nodes().Get(ctx, "node1", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	withLabels := api.DeepCopy(node1)
	withLabels.Labels = map[string]string{"node-restriction.kubernetes.io/trusted": "yes", "node-role.kubernetes.io/control-plane": ""}
	_, err = kubelet.Nodes().Update(ctx, withLabels, client.UpdateOptions{})
	requireForbidden(t, err, `nodes "node1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/trusted, node-role.kubernetes.io/control-plane`)
	withTaint := api.DeepCopy(node1)
	withTaint.Spec.Taints = []api.Taint{{Key: "dedicated", Value: "x", Effect: "NoSchedule"}}
	_, err = kubelet.Nodes().Update(ctx, withTaint, client.UpdateOptions{})
	requireForbidden(t, err, `nodes "node1" is forbidden: node "node1" is not allowed to modify taints`)
	allowed := api.DeepCopy(node1)
	allowed.Labels = map[string]string{"kubernetes.io/hostname": "node1", "node.kubernetes.io/exclude-from-external-load-balancers": "", "example.com/rack": "r1"}
	if _, err := kubelet.Nodes().Update(ctx, allowed, client.UpdateOptions{}); err != nil {
		t.Fatalf("node1 sets its own labels: %v", err)
	}

	// Registering: a new Node named after itself, its own labels only.
	node3 := &api.Node{}
	node3.Name = "node3"
	_, err = kubelet.Nodes().Create(ctx, node3, client.CreateOptions{})
	requireForbidden(t, err, `nodes "node3" is forbidden: node "node1" is not allowed to modify node "node3"`)
	kubelet3 := a.ClientAs(t, auth.NodeUser("node3"), nil)
	node3.Labels = map[string]string{"node-role.kubernetes.io/worker": ""}
	_, err = kubelet3.Nodes().Create(ctx, node3, client.CreateOptions{})
	requireForbidden(t, err, `nodes "node3" is forbidden: node "node3" is not allowed to set the following labels: node-role.kubernetes.io/worker`)
	node3.Labels = map[string]string{"kubernetes.io/os": "linux"}
	node3.Spec.Taints = []api.Taint{{Key: "registered-with", Effect: "NoSchedule"}}
	if _, err := kubelet3.Nodes().Create(ctx, node3, client.CreateOptions{}); err != nil {
		t.Fatalf("node3 registers itself with a taint: %v", err)
	}

	// Leases: its own in kube-node-lease.
	lease := &api.Lease{}
	lease.Name, lease.Namespace = "node2", api.NamespaceNodeLease
	_, err = kubelet.Leases(api.NamespaceNodeLease).Create(ctx, lease, client.CreateOptions{})
	requireForbidden(t, err, `leases.coordination.k8s.io "node2" is forbidden: can only access node lease with the same name as the requesting node`)
	lease.Name = "node1"
	if _, err := kubelet.Leases(api.NamespaceNodeLease).Create(ctx, lease, client.CreateOptions{}); err != nil {
		t.Fatalf("node1 creates its lease: %v", err)
	}

	// Pods: mirror pods bound to itself, owned by its Node, reaching nothing.
	plain := mirrorPodFor("plain", "node1", string(node1.UID))
	plain.Annotations = nil
	_, err = kubelet.Pods("default").Create(ctx, plain, client.CreateOptions{})
	requireForbidden(t, err, `pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node1" can only create mirror pods`)
	_, err = kubelet.Pods("default").Create(ctx, mirrorPodFor("elsewhere", "node2", string(node2.UID)), client.CreateOptions{})
	requireForbidden(t, err, `pods "elsewhere" is forbidden: node "node1" can only create pods with spec.nodeName set to itself`)
	wrongUID := mirrorPodFor("wrong-uid", "node1", "0000")
	_, err = kubelet.Pods("default").Create(ctx, wrongUID, client.CreateOptions{})
	requireForbidden(t, err, `pods "wrong-uid" is forbidden: node node1 UID mismatch: expected 0000 got `+string(node1.UID))
	unowned := mirrorPodFor("unowned", "node1", "")
	unowned.OwnerReferences = nil
	_, err = kubelet.Pods("default").Create(ctx, unowned, client.CreateOptions{})
	requireForbidden(t, err, `pods "unowned" is forbidden: node "node1" can only create pods with an owner reference set to itself`)
	withSecret := mirrorPodFor("with-secret", "node1", string(node1.UID))
	withSecret.Spec.Volumes = []api.Volume{{Name: "s", VolumeSource: api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: "db-secret"}}}}
	_, err = kubelet.Pods("default").Create(ctx, withSecret, client.CreateOptions{})
	requireForbidden(t, err, `pods "with-secret" is forbidden: node "node1" can not create pods that reference secrets`)
	if _, err := kubelet.Pods("default").Create(ctx, mirrorPodFor("static-web-node1", "node1", string(node1.UID)), client.CreateOptions{}); err != nil {
		t.Fatalf("node1 creates a mirror pod: %v", err)
	}

	// Pod status, eviction and delete: only pods bound to itself.
	db, err := admin.Pods("default").Get(ctx, "db", client.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	db.Status.Phase = api.PodRunning
	_, err = kubelet.Pods("default").UpdateStatus(ctx, db, client.UpdateOptions{})
	requireForbidden(t, err, `pods "db" is forbidden: node "node1" can only update pod status for pods with spec.nodeName set to itself`)
	eviction := &api.Eviction{}
	eviction.Name, eviction.Namespace = "db", "default"
	err = kubelet.Evict(ctx, eviction)
	requireForbidden(t, err, `pods "db" is forbidden: node node1 can only evict pods with spec.nodeName set to itself`)
	err = kubelet.Pods("default").Delete(ctx, "db", client.DeleteOptions{})
	requireForbidden(t, err, `pods "db" is forbidden: node "node1" can only delete pods with spec.nodeName set to itself`)

	var web *api.Pod
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		web, err = kubelet.Pods("default").Get(ctx, "web", client.GetOptions{})
		return err == nil, errString(err)
	})
	web.Status.Phase = api.PodRunning
	if _, err := kubelet.Pods("default").UpdateStatus(ctx, web, client.UpdateOptions{}); err != nil {
		t.Fatalf("node1 updates its pod's status: %v", err)
	}
	if err := kubelet.Pods("default").Delete(ctx, "web", client.DeleteOptions{}); err != nil {
		t.Fatalf("node1 deletes its pod: %v", err)
	}

	// Other users are not restricted.
	withTaint.ResourceVersion = ""
	if _, err := admin.Nodes().Update(ctx, withTaint, client.UpdateOptions{}); err != nil {
		t.Fatalf("admin taints node1: %v", err)
	}
}

// TestNodeRestrictionUnknownNode: a node whose name does not say which
// node it is (system:node: with nothing after it) may write nothing, even
// where the authorizers let everyone write. A member of system:nodes with
// another name is no node at all, as upstream's nodeidentifier reads it,
// and NodeRestriction leaves it be.
func TestNodeRestrictionUnknownNode(t *testing.T) {
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.AuthorizationModes = []string{apiserver.AuthorizationModeAlwaysAllow}
	})
	odd := a.ClientAs(t, auth.User{Name: "system:node:", Groups: []string{auth.NodesGroup}}, nil)
	ctx := context.Background()
	cm := &api.ConfigMap{}
	cm.Name, cm.Namespace = "c1", "default"
	_, err := odd.ConfigMaps("default").Create(ctx, cm, client.CreateOptions{})
	requireForbidden(t, err, `configmaps "c1" is forbidden: could not determine node from user "system:node:"`)

	// A well-named node may, there: NodeRestriction leaves configmaps be.
	if _, err := a.ClientAs(t, auth.NodeUser("node1"), nil).ConfigMaps("default").Create(ctx, cm, client.CreateOptions{}); err != nil {
		t.Fatalf("node1 creates a configmap under AlwaysAllow: %v", err)
	}
	err = odd.ConfigMaps("default").Delete(ctx, "c1", client.DeleteOptions{})
	requireForbidden(t, err, `configmaps "c1" is forbidden: could not determine node from user "system:node:"`)

	notNode := a.ClientAs(t, auth.User{Name: "kubelet-x", Groups: []string{auth.NodesGroup}}, nil)
	if err := notNode.ConfigMaps("default").Delete(ctx, "c1", client.DeleteOptions{}); err != nil {
		t.Errorf("kubelet-x (in system:nodes, not named system:node:…) deletes a configmap under AlwaysAllow: %v", err)
	}
}

// TestNodeRestrictionTokenRequest: a kubelet gets ServiceAccount tokens
// only bound to a pod running on its node.
func TestNodeRestrictionTokenRequest(t *testing.T) {
	a, admin := startNodeAuthorized(t)
	kubelet := a.ClientAs(t, auth.NodeUser("node1"), nil)
	ctx := context.Background()
	sa := &api.ServiceAccount{}
	sa.Name = "default"
	if _, err := admin.ServiceAccounts("default").Create(ctx, sa, client.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	uidOf := func(name string) string {
		p, err := admin.Pods("default").Get(ctx, name, client.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p.UID
	}
	request := func(binding string) (int, string, error) {
		t.Helper()
		body := `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{` + binding + `}}`
		code, out, err := kubelet.Do(ctx, "POST", "/api/v1/namespaces/default/serviceaccounts/default/token", []byte(body), map[string]string{"Content-Type": "application/json"})
		return code, string(out), err
	}
	// The Node authorizer needs web (on node1, running as default) in its cache.
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		code, out, err := request(`"boundObjectRef":{"apiVersion":"v1","kind":"Pod","name":"web","uid":"` + uidOf("web") + `"}`)
		return err == nil && code == 201 && strings.Contains(out, `"token":"`), fmt.Sprintf("token bound to web: %d %s %v", code, out, err)
	})
	for _, tt := range []struct{ binding, message string }{
		{``, "node requested token not bound to a pod"},
		{`"boundObjectRef":{"apiVersion":"v1","kind":"Pod","name":"web"}`, "node requested token with a pod binding without a uid"},
		{`"boundObjectRef":{"apiVersion":"v1","kind":"Pod","name":"web","uid":"0000"}`, "the UID in the bound object reference (0000) does not match the UID in record. The object might have been deleted and then recreated"},
		{`"boundObjectRef":{"apiVersion":"v1","kind":"Pod","name":"db","uid":"` + uidOf("db") + `"}`, "node requested token bound to a pod scheduled on a different node"},
	} {
		_, _, err := request(tt.binding)
		requireForbidden(t, err, `serviceaccounts "default" is forbidden: `+tt.message)
	}
}
