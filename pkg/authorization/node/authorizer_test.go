package node

import (
	"context"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
	"kplane/pkg/authorization/bootstrappolicy"
)

// fakeSource is a Source over fixed objects.
type fakeSource struct {
	pods    []*api.Pod
	claims  map[string]*api.PersistentVolumeClaim // namespace/name
	volumes map[string]*api.PersistentVolume
}

func (f *fakeSource) PodsOnNode(nodeName string) []*api.Pod {
	var out []*api.Pod
	for _, p := range f.pods {
		if p.Spec.NodeName == nodeName {
			out = append(out, p)
		}
	}
	return out
}

func (f *fakeSource) PersistentVolumeClaim(namespace, name string) (*api.PersistentVolumeClaim, bool) {
	c, ok := f.claims[namespace+"/"+name]
	return c, ok
}

func (f *fakeSource) PersistentVolume(name string) (*api.PersistentVolume, bool) {
	v, ok := f.volumes[name]
	return v, ok
}

func ptr[T any](v T) *T { return &v }

// fixture: pod web on node1 in ns1 uses secrets, configmaps, a claim bound
// to pv1 (whose CSI secret lives in kube-system) and ServiceAccount
// web-sa; pod db runs on node2 with secret db-secret.
func fixture() *fakeSource {
	web := &api.Pod{}
	web.Name, web.Namespace = "web", "ns1"
	web.Spec.NodeName = "node1"
	web.Spec.ServiceAccountName = "web-sa"
	web.Spec.ImagePullSecrets = []api.LocalObjectReference{{Name: "pull-secret"}}
	web.Spec.Containers = []api.Container{{
		Name: "c",
		Env: []api.EnvVar{
			{Name: "A", ValueFrom: &api.EnvVarSource{SecretKeyRef: &api.SecretKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "env-secret"}}}},
			{Name: "B", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "env-cm"}}}},
		},
		EnvFrom: []api.EnvFromSource{{SecretRef: &api.SecretEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "envfrom-secret"}}}},
	}}
	web.Spec.InitContainers = []api.Container{{Name: "init", EnvFrom: []api.EnvFromSource{{ConfigMapRef: &api.ConfigMapEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "init-cm"}}}}}}
	web.Spec.Volumes = []api.Volume{
		{Name: "s", VolumeSource: api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: "vol-secret"}}},
		{Name: "cm", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "vol-cm"}}}},
		{Name: "p", VolumeSource: api.VolumeSource{Projected: &api.ProjectedVolumeSource{Sources: []api.VolumeProjection{
			{Secret: &api.SecretProjection{LocalObjectReference: api.LocalObjectReference{Name: "proj-secret"}}},
			{ConfigMap: &api.ConfigMapProjection{LocalObjectReference: api.LocalObjectReference{Name: "kube-root-ca.crt"}}},
		}}}},
		{Name: "data", VolumeSource: api.VolumeSource{PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
		{Name: "scratch", VolumeSource: api.VolumeSource{Ephemeral: &api.EphemeralVolumeSource{}}},
	}

	db := &api.Pod{}
	db.Name, db.Namespace = "db", "ns1"
	db.Spec.NodeName = "node2"
	db.Spec.Volumes = []api.Volume{{Name: "s", VolumeSource: api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: "db-secret"}}}}

	pending := &api.Pod{}
	pending.Name, pending.Namespace = "pending", "ns1"
	pending.Spec.Volumes = []api.Volume{{Name: "s", VolumeSource: api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: "pending-secret"}}}}

	claim := &api.PersistentVolumeClaim{}
	claim.Name, claim.Namespace = "data", "ns1"
	claim.Spec.VolumeName = "pv1"
	pv := &api.PersistentVolume{}
	pv.Name = "pv1"
	pv.Spec.CSI = &api.CSIPersistentVolumeSource{Driver: "d", NodePublishSecretRef: &api.SecretReference{Namespace: "kube-system", Name: "csi-secret"}}
	pv2 := &api.PersistentVolume{}
	pv2.Name = "pv2"

	return &fakeSource{
		pods:    []*api.Pod{web, db, pending},
		claims:  map[string]*api.PersistentVolumeClaim{"ns1/data": claim},
		volumes: map[string]*api.PersistentVolume{"pv1": pv, "pv2": pv2},
	}
}

type request struct {
	verb, group, resource, sub, ns, name, fieldSelector string
}

func (r request) attrs(user auth.User) authorizer.Attributes {
	return authorizer.Attributes{User: user, ResourceRequest: true, Verb: r.verb, APIGroup: r.group, APIVersion: "v1",
		Resource: r.resource, Subresource: r.sub, Namespace: r.ns, Name: r.name, FieldSelector: r.fieldSelector}
}

func TestNodeAuthorizer(t *testing.T) {
	z := New(fixture(), bootstrappolicy.NodeRules())
	node1 := auth.NodeUser("node1")
	const noRel = "no relationship found between node 'node1' and this object"
	tests := []struct {
		name   string
		req    request
		allow  bool
		reason string
	}{
		// Secrets and configmaps its pods reference, and only those.
		{"secret volume", request{verb: "get", resource: "secrets", ns: "ns1", name: "vol-secret"}, true, ""},
		{"secret env", request{verb: "get", resource: "secrets", ns: "ns1", name: "env-secret"}, true, ""},
		{"secret envFrom", request{verb: "get", resource: "secrets", ns: "ns1", name: "envfrom-secret"}, true, ""},
		{"secret projected", request{verb: "get", resource: "secrets", ns: "ns1", name: "proj-secret"}, true, ""},
		{"image pull secret", request{verb: "get", resource: "secrets", ns: "ns1", name: "pull-secret"}, true, ""},
		{"watch one secret", request{verb: "watch", resource: "secrets", ns: "ns1", name: "vol-secret"}, true, ""},
		{"PV's CSI secret", request{verb: "get", resource: "secrets", ns: "kube-system", name: "csi-secret"}, true, ""},
		{"other node's secret", request{verb: "get", resource: "secrets", ns: "ns1", name: "db-secret"}, false, noRel},
		{"unscheduled pod's secret", request{verb: "get", resource: "secrets", ns: "ns1", name: "pending-secret"}, false, noRel},
		{"same name other namespace", request{verb: "get", resource: "secrets", ns: "ns2", name: "vol-secret"}, false, noRel},
		{"list secrets", request{verb: "list", resource: "secrets", ns: "ns1"}, false, "No Object name found"},
		{"list all secrets", request{verb: "list", resource: "secrets"}, false, "can only read namespaced object of this type"},
		{"update secret", request{verb: "update", resource: "secrets", ns: "ns1", name: "vol-secret"}, false, "can only read resources of this type"},
		{"configmap env", request{verb: "get", resource: "configmaps", ns: "ns1", name: "env-cm"}, true, ""},
		{"configmap init envFrom", request{verb: "get", resource: "configmaps", ns: "ns1", name: "init-cm"}, true, ""},
		{"configmap volume", request{verb: "get", resource: "configmaps", ns: "ns1", name: "vol-cm"}, true, ""},
		{"configmap projected", request{verb: "get", resource: "configmaps", ns: "ns1", name: "kube-root-ca.crt"}, true, ""},
		{"other configmap", request{verb: "get", resource: "configmaps", ns: "ns1", name: "other"}, false, noRel},

		// Volumes.
		{"claim", request{verb: "get", resource: "persistentvolumeclaims", ns: "ns1", name: "data"}, true, ""},
		{"ephemeral claim", request{verb: "get", resource: "persistentvolumeclaims", ns: "ns1", name: "web-scratch"}, true, ""},
		{"claim status", request{verb: "patch", resource: "persistentvolumeclaims", sub: "status", ns: "ns1", name: "data"}, true, ""},
		{"list claims", request{verb: "list", resource: "persistentvolumeclaims", ns: "ns1"}, false, "can only get individual resources of this type"},
		{"bound volume", request{verb: "get", resource: "persistentvolumes", name: "pv1"}, true, ""},
		{"other volume", request{verb: "get", resource: "persistentvolumes", name: "pv2"}, false, noRel},

		// Tokens for its pods' ServiceAccounts.
		{"token", request{verb: "create", resource: "serviceaccounts", sub: "token", ns: "ns1", name: "web-sa"}, true, ""},
		{"token other SA", request{verb: "create", resource: "serviceaccounts", sub: "token", ns: "ns1", name: "default"}, false, noRel},
		{"get SA", request{verb: "get", resource: "serviceaccounts", ns: "ns1", name: "web-sa"}, false, "can only create tokens for individual service accounts"},

		// Its own Node.
		{"get own node", request{verb: "get", resource: "nodes", name: "node1"}, true, ""},
		{"watch own node", request{verb: "watch", resource: "nodes", name: "node1"}, true, ""},
		{"get other node", request{verb: "get", resource: "nodes", name: "node2"}, false, "node 'node1' cannot read 'node2', only its own Node object"},
		{"list nodes", request{verb: "list", resource: "nodes"}, false, "node 'node1' cannot read all nodes, only its own Node object"},
		{"create node", request{verb: "create", resource: "nodes"}, true, ""},
		{"update node status", request{verb: "update", resource: "nodes", sub: "status", name: "node1"}, true, ""},
		{"delete node", request{verb: "delete", resource: "nodes", name: "node1"}, false, ""},

		// Its pods.
		{"get own pod", request{verb: "get", resource: "pods", ns: "ns1", name: "web"}, true, ""},
		{"get other node's pod", request{verb: "get", resource: "pods", ns: "ns1", name: "db"}, false, noRel},
		{"watch own pods", request{verb: "watch", resource: "pods", fieldSelector: "spec.nodeName=node1"}, true, ""},
		{"list own pods ==", request{verb: "list", resource: "pods", fieldSelector: "status.phase!=Failed,spec.nodeName==node1"}, true, ""},
		{"list other node's pods", request{verb: "list", resource: "pods", fieldSelector: "spec.nodeName=node2"}, false, "can only list/watch pods with spec.nodeName field selector"},
		{"list all pods", request{verb: "list", resource: "pods"}, false, "can only list/watch pods with spec.nodeName field selector"},
		{"mirror pod create", request{verb: "create", resource: "pods", ns: "ns1"}, true, ""},
		{"pod status", request{verb: "patch", resource: "pods", sub: "status", ns: "ns1", name: "db"}, true, ""},
		{"eviction", request{verb: "create", resource: "pods", sub: "eviction", ns: "ns1", name: "web"}, true, ""},
		{"update pod", request{verb: "update", resource: "pods", ns: "ns1", name: "web"}, false, ""},

		// Its Lease.
		{"own lease", request{verb: "update", group: "coordination.k8s.io", resource: "leases", ns: "kube-node-lease", name: "node1"}, true, ""},
		{"create lease", request{verb: "create", group: "coordination.k8s.io", resource: "leases", ns: "kube-node-lease"}, true, ""},
		{"other lease", request{verb: "update", group: "coordination.k8s.io", resource: "leases", ns: "kube-node-lease", name: "node2"}, false, "can only access node lease with the same name as the requesting node"},
		{"lease elsewhere", request{verb: "get", group: "coordination.k8s.io", resource: "leases", ns: "kube-system", name: "node1"}, false, `can only access leases in the "kube-node-lease" system namespace`},
		{"list leases", request{verb: "list", group: "coordination.k8s.io", resource: "leases", ns: "kube-node-lease"}, false, "can only get, create, update, patch, or delete a node lease"},

		// Kinds kplane does not serve: never allowed, though the node rules list them.
		{"own csinode", request{verb: "get", group: "storage.k8s.io", resource: "csinodes", name: "node1"}, false, ""},
		{"resource slices", request{verb: "list", group: "resource.k8s.io", resource: "resourceslices"}, false, ""},

		// The fixed node rules.
		{"events", request{verb: "create", resource: "events", ns: "ns1"}, true, ""},
		{"services", request{verb: "watch", resource: "services"}, true, ""},
		{"token review", request{verb: "create", group: "authentication.k8s.io", resource: "tokenreviews"}, true, ""},
		{"access review", request{verb: "create", group: "authorization.k8s.io", resource: "subjectaccessreviews"}, true, ""},
		{"deployments", request{verb: "list", group: "apps", resource: "deployments"}, false, ""},
		{"delete secret", request{verb: "delete", resource: "secrets", ns: "ns1", name: "vol-secret"}, false, "can only read resources of this type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := z.Authorize(context.Background(), tt.req.attrs(node1))
			if err != nil {
				t.Fatal(err)
			}
			want := authorizer.DecisionNoOpinion
			if tt.allow {
				want = authorizer.DecisionAllow
			}
			if d != want || reason != tt.reason {
				t.Errorf("got %v %q, want %v %q", d, reason, want, tt.reason)
			}
		})
	}
}

func TestNodeAuthorizerIgnoresOtherUsers(t *testing.T) {
	z := New(fixture(), bootstrappolicy.NodeRules())
	secret := request{verb: "get", resource: "secrets", ns: "ns1", name: "vol-secret"}

	// Not a node: no opinion, no reason (RBAC decides). A node needs both
	// the system:node: name and the system:nodes group.
	for _, u := range []auth.User{{Name: "alice"}, {Name: "system:node:node1"}, {Name: "kubelet-x", Groups: []string{auth.NodesGroup}}} {
		d, reason, _ := z.Authorize(context.Background(), secret.attrs(u))
		if d != authorizer.DecisionNoOpinion || reason != "" {
			t.Errorf("%+v: got %v %q, want no opinion without reason", u, d, reason)
		}
	}
	// In system:nodes and named system:node: with no node name.
	odd := auth.User{Name: "system:node:", Groups: []string{auth.NodesGroup}}
	d, reason, _ := z.Authorize(context.Background(), secret.attrs(odd))
	if d != authorizer.DecisionNoOpinion || reason != `unknown node for user "system:node:"` {
		t.Errorf("got %v %q", d, reason)
	}
	// A non-resource request falls to the node rules, which have none.
	d, _, _ = z.Authorize(context.Background(), authorizer.Attributes{User: auth.NodeUser("node1"), Verb: "get", Path: "/healthz"})
	if d != authorizer.DecisionNoOpinion {
		t.Errorf("/healthz: got %v", d)
	}
}

func TestSelectsField(t *testing.T) {
	for _, tt := range []struct {
		selector string
		want     bool
	}{
		{"spec.nodeName=n1", true},
		{"spec.nodeName==n1", true},
		{" spec.nodeName = n1 ", true},
		{"metadata.namespace=x,spec.nodeName=n1", true},
		{"spec.nodeName!=n1", false},
		{"spec.nodeName=n10", false},
		{"", false},
		{"spec.nodeName", false},
	} {
		if got := selectsField(tt.selector, "spec.nodeName", "n1"); got != tt.want {
			t.Errorf("selectsField(%q) = %v, want %v", tt.selector, got, tt.want)
		}
	}
}

func TestRulesForSaysNodesAreIncomplete(t *testing.T) {
	z := New(fixture(), bootstrappolicy.NodeRules())
	_, _, incomplete, err := z.RulesFor(context.Background(), auth.NodeUser("node1"), "default")
	if !incomplete || err == nil {
		t.Errorf("node: incomplete %v err %v, want incomplete with an error", incomplete, err)
	}
	rules, nonResource, incomplete, err := z.RulesFor(context.Background(), auth.User{Name: "alice"}, "default")
	if rules != nil || nonResource != nil || incomplete || err != nil {
		t.Errorf("alice: %v %v %v %v, want nothing", rules, nonResource, incomplete, err)
	}
}
