package client

import (
	"net/url"
	"testing"
)

func TestResourcePath(t *testing.T) {
	tests := []struct {
		res       Resource
		namespace string
		name      string
		sub       []string
		want      string
	}{
		{PodsResource, "default", "web-0", []string{"status"}, "/api/v1/namespaces/default/pods/web-0/status"},
		{PodsResource, "", "", nil, "/api/v1/pods"},
		{PodsResource, "kube-system", "", nil, "/api/v1/namespaces/kube-system/pods"},
		{NodesResource, "ignored", "node-1", nil, "/api/v1/nodes/node-1"},
		{NamespacesResource, "", "dev", []string{"finalize"}, "/api/v1/namespaces/dev/finalize"},
		{DeploymentsResource, "", "", nil, "/apis/apps/v1/deployments"},
		{DeploymentsResource, "ns", "web", []string{"scale"}, "/apis/apps/v1/namespaces/ns/deployments/web/scale"},
		{LeasesResource, "kube-system", "kube-scheduler", nil, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler"},
		{HorizontalPodAutoscalersResource, "ns", "h", nil, "/apis/autoscaling/v2/namespaces/ns/horizontalpodautoscalers/h"},
		{ClusterRolesResource, "", "system:admin", nil, "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:admin"},
		{ConfigMapsResource, "ns", "a/b", nil, "/api/v1/namespaces/ns/configmaps/a%2Fb"},
	}
	for _, tt := range tests {
		if got := resourcePath(tt.res, tt.namespace, tt.name, tt.sub...); got != tt.want {
			t.Errorf("resourcePath(%s, %q, %q, %q) = %q, want %q", tt.res, tt.namespace, tt.name, tt.sub, got, tt.want)
		}
	}
}

func TestObjectPathRefusesMissingParts(t *testing.T) {
	if _, err := objectPath(PodsResource, "", "web-0"); err == nil {
		t.Error("a namespaced object without a namespace was accepted")
	}
	if _, err := objectPath(PodsResource, "ns", ""); err == nil {
		t.Error("an object without a name was accepted")
	}
	if _, err := objectPath(NodesResource, "", "node-1"); err != nil {
		t.Errorf("cluster-scoped object: %v", err)
	}
	if _, err := collectionPath(PodsResource, "", true); err == nil {
		t.Error("a create into a namespaced collection without a namespace was accepted")
	}
}

func TestOptionsQuery(t *testing.T) {
	timeout := int64(30)
	tests := []struct {
		name string
		got  url.Values
		want string
	}{
		{"empty list", ListOptions{}.query(), ""},
		{"full list", ListOptions{LabelSelector: "app in (a,b)", FieldSelector: "spec.nodeName=n1", ResourceVersion: "10",
			ResourceVersionMatch: "NotOlderThan", Limit: 500, Continue: "tok", TimeoutSeconds: &timeout, AllowWatchBookmarks: true}.query(),
			"allowWatchBookmarks=true&continue=tok&fieldSelector=spec.nodeName%3Dn1&labelSelector=app+in+%28a%2Cb%29&limit=500&resourceVersion=10&resourceVersionMatch=NotOlderThan&timeoutSeconds=30"},
		{"get", GetOptions{ResourceVersion: "0"}.query(), "resourceVersion=0"},
		{"create", CreateOptions{DryRun: true, FieldValidation: "Strict", FieldManager: "kubectl"}.query(),
			"dryRun=All&fieldManager=kubectl&fieldValidation=Strict"},
	}
	for _, tt := range tests {
		if got := tt.got.Encode(); got != tt.want {
			t.Errorf("%s: query = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestResourceForKind(t *testing.T) {
	tests := []struct {
		apiVersion, kind string
		want             Resource
		ok               bool
	}{
		{"apps/v1", "Deployment", DeploymentsResource, true},
		{"v1", "Pod", PodsResource, true},
		{"autoscaling/v2", "HorizontalPodAutoscaler", HorizontalPodAutoscalersResource, true},
		{"storage.k8s.io/v1", "StorageClass", StorageClassesResource, true},
		{"scheduling.k8s.io/v1", "PriorityClass", PriorityClassesResource, true},
		{"apps/v1beta1", "Deployment", Resource{}, false},
		{"v1", "Widget", Resource{}, false},
	}
	for _, tt := range tests {
		got, ok := ResourceForKind(tt.apiVersion, tt.kind)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ResourceForKind(%q, %q) = %v, %v", tt.apiVersion, tt.kind, got, ok)
		}
	}
	if n := len(BuiltinResources()); n != 36 {
		t.Errorf("BuiltinResources has %d entries, want 36 (14 core, 5 apps, 2 batch, HPA, Lease, EndpointSlice, 3 networking, PDB, 4 RBAC, StorageClass, PriorityClass, APIService, CSR)", n)
	}
}
