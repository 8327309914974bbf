package apiserver_test

import (
	"context"
	"errors"
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

// startNodeAuthorized starts an apiserver that authorizes with the Node
// authorizer alone, and creates nodes node1 and node2, each running one
// pod in default: web on node1 mounts secret web-secret, db on node2
// mounts db-secret.
func startNodeAuthorized(t *testing.T) (*framework.APIServer, *client.Client) {
	t.Helper()
	a := framework.StartAPIServerWith(t, t.TempDir(), func(o *apiserver.Options) {
		o.AuthorizationModes = []string{apiserver.AuthorizationModeNode}
	})
	admin := a.Client(t, nil)
	ctx := context.Background()
	for _, name := range []string{"node1", "node2"} {
		n := &api.Node{}
		n.Name = name
		if _, err := admin.Nodes().Create(ctx, n, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []struct{ pod, node, secret string }{{"web", "node1", "web-secret"}, {"db", "node2", "db-secret"}} {
		s := &api.Secret{StringData: map[string]string{"k": "v"}}
		s.Name = p.secret
		if _, err := admin.Secrets("default").Create(ctx, s, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pod := &api.Pod{}
		pod.Name = p.pod
		pod.Spec.NodeName = p.node
		pod.Spec.Containers = []api.Container{{Name: "c", Image: "busybox"}}
		pod.Spec.Volumes = []api.Volume{{Name: "s", VolumeSource: api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: p.secret}}}}
		if _, err := admin.Pods("default").Create(ctx, pod, client.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return a, admin
}

// requireForbidden checks err is upstream's 403 with the given message.
func requireForbidden(t *testing.T, err error, message string) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Fatalf("got %v, want 403 Forbidden", err)
	}
	var status *apierrors.StatusError
	if !errors.As(err, &status) || status.ErrStatus.Message != message {
		t.Fatalf("message:\n got %v\nwant %s", err, message)
	}
}

// TestNodeAuthorizerKubeletCredentials is the kubelet part of issue 16's
// "Done when" 2: node1's credentials reach node1 and what its pods use,
// and get upstream's 403 for node2's objects.
func TestNodeAuthorizerKubeletCredentials(t *testing.T) {
	a, admin := startNodeAuthorized(t)
	kubelet := a.ClientAs(t, auth.NodeUser("node1"), nil)
	ctx := context.Background()

	// Its own Node: read and status update.
	n, err := kubelet.Nodes().Get(ctx, "node1", client.GetOptions{})
	if err != nil {
		t.Fatalf("node1 reads its Node: %v", err)
	}
	n.Status.Conditions = []api.NodeCondition{{Type: "Ready", Status: "True", Reason: "KubeletReady"}}
	if _, err := kubelet.Nodes().UpdateStatus(ctx, n, client.UpdateOptions{}); err != nil {
		t.Fatalf("node1 updates its status: %v", err)
	}

	// Its pods: list by spec.nodeName, get, update status. The pod
	// reached the watch cache behind the Node authorizer a moment ago.
	var web *api.Pod
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		web, err = kubelet.Pods("default").Get(ctx, "web", client.GetOptions{})
		return err == nil, "node1 gets its pod web: " + errString(err)
	})
	pods, err := kubelet.Pods("").List(ctx, client.ListOptions{FieldSelector: "spec.nodeName=node1"})
	if err != nil || len(pods.Items) != 1 || pods.Items[0].Name != "web" {
		t.Fatalf("node1 lists its pods: %v %v", pods, err)
	}
	web.Status.Phase = api.PodRunning
	if _, err := kubelet.Pods("default").UpdateStatus(ctx, web, client.UpdateOptions{}); err != nil {
		t.Fatalf("node1 updates web's status: %v", err)
	}

	// The secret its pod mounts, and not another.
	if _, err := kubelet.Secrets("default").Get(ctx, "web-secret", client.GetOptions{}); err != nil {
		t.Fatalf("node1 reads web-secret: %v", err)
	}
	_, err = kubelet.Secrets("default").Get(ctx, "db-secret", client.GetOptions{})
	requireForbidden(t, err, `secrets "db-secret" is forbidden: User "system:node:node1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'node1' and this object`)
	_, err = kubelet.Secrets("default").List(ctx, client.ListOptions{})
	requireForbidden(t, err, `secrets is forbidden: User "system:node:node1" cannot list resource "secrets" in API group "" in the namespace "default": No Object name found`)

	// node2 and its pods.
	_, err = kubelet.Nodes().Get(ctx, "node2", client.GetOptions{})
	requireForbidden(t, err, `nodes "node2" is forbidden: User "system:node:node1" cannot get resource "nodes" in API group "" at the cluster scope: node 'node1' cannot read 'node2', only its own Node object`)
	_, err = kubelet.Nodes().List(ctx, client.ListOptions{})
	requireForbidden(t, err, `nodes is forbidden: User "system:node:node1" cannot list resource "nodes" in API group "" at the cluster scope: node 'node1' cannot read all nodes, only its own Node object`)
	_, err = kubelet.Pods("default").Get(ctx, "db", client.GetOptions{})
	requireForbidden(t, err, `pods "db" is forbidden: User "system:node:node1" cannot get resource "pods" in API group "" in the namespace "default": no relationship found between node 'node1' and this object`)
	_, err = kubelet.Pods("").List(ctx, client.ListOptions{FieldSelector: "spec.nodeName=node2"})
	requireForbidden(t, err, `pods is forbidden: User "system:node:node1" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector`)

	// Once web is gone, so is node1's access to its secret.
	if err := admin.Pods("default").Delete(ctx, "web", client.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		_, err := kubelet.Secrets("default").Get(ctx, "web-secret", client.GetOptions{})
		return apierrors.IsForbidden(err), "node1 still reads web-secret: " + errString(err)
	})

	// Someone who is not a node gets nothing from the Node authorizer.
	alice := a.ClientAs(t, auth.User{Name: "alice"}, nil)
	_, err = alice.Secrets("default").Get(ctx, "web-secret", client.GetOptions{})
	if !apierrors.IsForbidden(err) || !strings.HasSuffix(err.Error(), `in the namespace "default"`) {
		t.Fatalf("alice: got %v, want 403 without a reason", err)
	}
}
