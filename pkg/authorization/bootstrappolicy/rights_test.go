package bootstrappolicy_test

import (
	"fmt"
	"slices"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/auth"
	"kplane/pkg/authorization/authorizer"
	"kplane/pkg/authorization/bootstrappolicy"
	"kplane/pkg/authorization/rbac"
	"kplane/pkg/pki"
)

// policyRules answers "which rules of the bootstrap policy apply to this
// user in this namespace?" the way the RBAC authorizer does: the rules of
// every ClusterRoleBinding naming the user, and of every RoleBinding in
// the namespace naming it, with aggregated ClusterRoles holding the rules
// of the roles they select (what the aggregation controller writes).
func policyRules(u auth.User, namespace string) []api.PolicyRule {
	clusterRoles := map[string]api.ClusterRole{}
	all := bootstrappolicy.ClusterRoles()
	for _, r := range all {
		clusterRoles[r.Name] = r
	}
	clusterRoleRules := func(name string) []api.PolicyRule {
		r := clusterRoles[name]
		if r.AggregationRule == nil {
			return r.Rules
		}
		var rules []api.PolicyRule
		for _, sel := range r.AggregationRule.ClusterRoleSelectors {
			for _, other := range all {
				matches := true
				for k, v := range sel.MatchLabels {
					matches = matches && other.Labels[k] == v
				}
				if matches && other.AggregationRule == nil {
					rules = append(rules, other.Rules...)
				}
			}
		}
		return rules
	}
	applies := func(subjects []api.Subject) bool {
		return slices.ContainsFunc(subjects, func(s api.Subject) bool {
			switch s.Kind {
			case api.UserKind:
				return s.Name == u.Name
			case api.GroupKind:
				return slices.Contains(u.Groups, s.Name)
			default:
				return u.Name == auth.ServiceAccountUsername(s.Namespace, s.Name)
			}
		})
	}
	var rules []api.PolicyRule
	for _, b := range bootstrappolicy.ClusterRoleBindings() {
		if applies(b.Subjects) {
			rules = append(rules, clusterRoleRules(b.RoleRef.Name)...)
		}
	}
	for _, b := range bootstrappolicy.RoleBindings() {
		if b.Namespace != namespace || namespace == "" || !applies(b.Subjects) {
			continue
		}
		if b.RoleRef.Kind == "ClusterRole" {
			rules = append(rules, clusterRoleRules(b.RoleRef.Name)...)
			continue
		}
		for _, r := range bootstrappolicy.Roles() {
			if r.Namespace == b.Namespace && r.Name == b.RoleRef.Name {
				rules = append(rules, r.Rules...)
			}
		}
	}
	return rules
}

// request is one API request in a test table: "verb group resource[/sub]
// namespace name".
type request struct {
	verb, group, resource, subresource, namespace, name string
}

func (r request) String() string {
	res := r.resource
	if r.subresource != "" {
		res += "/" + r.subresource
	}
	return fmt.Sprintf("%s %s %q in %q name %q", r.verb, res, r.group, r.namespace, r.name)
}

func allowed(u auth.User, r request) bool {
	a := authorizer.Attributes{User: u, Verb: r.verb, ResourceRequest: true, APIGroup: r.group,
		Namespace: r.namespace, Resource: r.resource, Subresource: r.subresource, Name: r.name}
	return rbac.RulesAllow(a, policyRules(u, r.namespace))
}

func req(verb, group, resource, subresource, namespace, name string) request {
	return request{verb, group, resource, subresource, namespace, name}
}

// sa is the user of a kube-system ServiceAccount, as its token
// authenticates it.
func sa(name string) auth.User {
	u := auth.ServiceAccountUser("kube-system", name)
	u.Groups = append(u.Groups, auth.AuthenticatedGroup)
	return u
}

func user(name string, groups ...string) auth.User {
	return auth.User{Name: name, Groups: append(groups, auth.AuthenticatedGroup)}
}

// "Done when" 2: each component and each controller can make the requests
// kplane's code makes and its upstream role allows, and is refused the
// ones its role does not allow.
func TestComponentAndControllerRights(t *testing.T) {
	clock := func(verb string) request { return req(verb, "", "configmaps", "", "kube-system", "kplane-clock") }
	coreEvent, newEvent := req("create", "", "events", "", "default", ""), req("create", "events.k8s.io", "events", "", "default", "")
	tests := []struct {
		who    string
		user   auth.User
		allow  []request
		forbid []request
	}{
		{"scheduler", user(auth.SchedulerUserName),
			[]request{req("list", "", "pods", "", "", ""), req("watch", "", "nodes", "", "", ""), req("create", "", "pods", "binding", "default", "web"),
				req("patch", "", "pods", "status", "default", "web"), req("update", "", "persistentvolumeclaims", "", "default", "data"),
				req("list", "storage.k8s.io", "storageclasses", "", "", ""), req("list", "policy", "poddisruptionbudgets", "", "", ""),
				req("delete", "", "pods", "", "default", "victim"), req("create", "coordination.k8s.io", "leases", "", "kube-system", ""),
				req("update", "coordination.k8s.io", "leases", "", "kube-system", "kube-scheduler"),
				req("create", "authentication.k8s.io", "tokenreviews", "", "", ""), coreEvent, newEvent, clock("get"), clock("watch")},
			[]request{req("delete", "apps", "deployments", "", "default", "web"), req("create", "", "pods", "", "default", ""),
				req("get", "", "secrets", "", "default", "s"), req("update", "coordination.k8s.io", "leases", "", "default", "kube-controller-manager"),
				req("get", "", "configmaps", "", "kube-system", "other"),
				// The leader-locking Role moved from ConfigMaps to Leases.
				req("update", "", "configmaps", "", "kube-system", "kube-scheduler")}},
		// system::leader-locking-* (namespace-roles.yaml): Leases and
		// LeaseCandidates in kube-system, for the components and the
		// coordinated leader election controller.
		{"scheduler's leader locking", user(auth.SchedulerUserName),
			[]request{req("create", "coordination.k8s.io", "leasecandidates", "", "kube-system", ""), req("list", "coordination.k8s.io", "leases", "", "kube-system", ""),
				req("update", "coordination.k8s.io", "leasecandidates", "", "kube-system", "kube-scheduler-x")},
			[]request{req("create", "coordination.k8s.io", "leasecandidates", "", "default", ""), req("delete", "coordination.k8s.io", "leases", "", "kube-system", "kube-scheduler")}},
		{"leader-election-controller", sa("leader-election-controller"),
			[]request{req("create", "coordination.k8s.io", "leases", "", "kube-system", ""), req("update", "coordination.k8s.io", "leases", "", "kube-system", "kube-scheduler"),
				req("watch", "coordination.k8s.io", "leasecandidates", "", "kube-system", "")},
			[]request{req("update", "coordination.k8s.io", "leases", "", "default", "x"), req("update", "", "configmaps", "", "kube-system", "kube-controller-manager")}},
		{"kube-proxy", user(auth.KubeProxyUserName),
			[]request{req("list", "", "services", "", "", ""), req("watch", "discovery.k8s.io", "endpointslices", "", "", ""), req("get", "", "nodes", "", "", "node1"),
				req("list", "", "nodes", "", "", ""), coreEvent, req("create", "authentication.k8s.io", "tokenreviews", "", "", ""), clock("list")},
			[]request{req("create", "", "services", "", "default", ""), req("update", "discovery.k8s.io", "endpointslices", "", "default", "x"),
				req("get", "", "secrets", "", "default", "s"), req("create", "authorization.k8s.io", "subjectaccessreviews", "", "", "")}},
		{"dns", sa(bootstrappolicy.CoreDNSServiceAccount),
			[]request{req("list", "", "services", "", "", ""), req("watch", "discovery.k8s.io", "endpointslices", "", "", ""), req("list", "", "namespaces", "", "", ""),
				req("get", "", "services", "", "kube-system", "kube-dns"), req("create", "", "services", "", "kube-system", ""),
				req("create", "authentication.k8s.io", "tokenreviews", "", "", ""), clock("watch")},
			[]request{req("create", "", "services", "", "default", ""), req("get", "", "services", "", "kube-system", "other"),
				req("get", "", "secrets", "", "kube-system", "s"), req("delete", "", "pods", "", "default", "p")}},
		{"metrics-server", sa(bootstrappolicy.MetricsServerServiceAccount),
			[]request{req("get", "", "nodes", "metrics", "", "node1"), req("list", "", "pods", "", "", ""), req("watch", "", "nodes", "", "", ""),
				req("create", "authentication.k8s.io", "tokenreviews", "", "", ""), req("create", "authorization.k8s.io", "subjectaccessreviews", "", "", ""),
				req("get", "", "configmaps", "", "kube-system", "extension-apiserver-authentication"), clock("get")},
			[]request{req("get", "", "nodes", "proxy", "", "node1"), req("delete", "", "pods", "", "default", "p"), req("get", "", "secrets", "", "kube-system", "s")}},
		{"cloud-controller-manager", sa(bootstrappolicy.CloudControllerManagerServiceAccount),
			[]request{req("update", "", "nodes", "", "", "node1"), req("delete", "", "nodes", "", "", "node1"), req("update", "", "nodes", "status", "", "node1"),
				req("patch", "", "nodes", "status", "", "node1"), req("patch", "", "services", "", "default", "lb"), req("patch", "", "services", "status", "default", "lb"),
				req("get", "coordination.k8s.io", "leases", "", "kube-system", "cloud-controller-manager"), req("create", "coordination.k8s.io", "leases", "", "kube-system", ""),
				coreEvent, req("create", "authentication.k8s.io", "tokenreviews", "", "", ""), clock("list")},
			[]request{req("delete", "", "pods", "", "default", "p"), req("get", "", "secrets", "", "default", "s"), req("create", "", "services", "", "default", "")}},
		{"controller-manager", user(auth.ControllerManagerUserName),
			[]request{req("list", "", "secrets", "", "", ""), req("watch", "apps", "deployments", "", "", ""), req("create", "", "serviceaccounts", "", "kube-system", ""),
				req("create", "", "serviceaccounts", "token", "kube-system", "job-controller"), req("get", "", "serviceaccounts", "", "kube-system", "job-controller"),
				req("update", "coordination.k8s.io", "leases", "", "kube-system", "kube-controller-manager"), req("create", "authentication.k8s.io", "tokenreviews", "", "", ""),
				coreEvent, clock("watch")},
			[]request{req("delete", "", "pods", "", "default", "p"), req("create", "apps", "deployments", "", "default", ""), req("update", "", "nodes", "", "", "node1")}},
		// The simulated runtime's network: the pod behind an address, on any
		// node, the NetworkPolicies and namespaces that judge a connection,
		// and nothing else (it once was in system:masters).
		{"simulated network", user(auth.SimulatedNetworkUserName),
			[]request{req("get", "", "pods", "", "default", "web"), req("list", "", "pods", "", "", ""), req("watch", "", "pods", "", "", ""),
				req("list", "networking.k8s.io", "networkpolicies", "", "default", ""), req("get", "", "namespaces", "", "", "default")},
			[]request{req("get", "", "services", "", "default", "web"), req("list", "discovery.k8s.io", "endpointslices", "", "", ""),
				req("get", "", "secrets", "", "default", "s"), req("update", "", "pods", "status", "default", "web"), req("delete", "", "pods", "", "default", "web"),
				req("get", "", "nodes", "", "", "node1"), req("create", "networking.k8s.io", "networkpolicies", "", "default", ""),
				req("update", "", "namespaces", "", "", "default")}},
		{"apiserver's kubelet client", auth.User{Name: pki.KubeletClientCommonName, Groups: []string{pki.KubeletClientOrganization, auth.AuthenticatedGroup}},
			[]request{req("get", "", "nodes", "proxy", "", "node1"), req("create", "", "nodes", "proxy", "", "node1"), req("get", "", "nodes", "log", "", "node1")}, nil},

		// The controllers, as their ServiceAccounts under
		// --use-service-account-credentials.
		{"replicaset-controller", sa("replicaset-controller"),
			[]request{req("create", "", "pods", "", "default", ""), req("delete", "", "pods", "", "default", "p"), req("patch", "", "pods", "", "default", "p"),
				req("get", "apps", "replicasets", "", "default", "rs"), req("update", "apps", "replicasets", "status", "default", "rs"), coreEvent, newEvent},
			[]request{req("delete", "", "nodes", "", "", "node1"), req("update", "", "pods", "", "default", "p"), req("create", "apps", "deployments", "", "default", "")}},
		{"replication-controller", sa("replication-controller"),
			[]request{req("create", "", "pods", "", "default", ""), req("update", "", "replicationcontrollers", "status", "default", "rc")},
			[]request{req("delete", "apps", "replicasets", "", "default", "rs")}},
		{"deployment-controller", sa("deployment-controller"),
			[]request{req("create", "apps", "replicasets", "", "default", ""), req("delete", "apps", "replicasets", "", "default", "rs"),
				req("patch", "apps", "replicasets", "", "default", "rs"), req("update", "apps", "deployments", "", "default", "d"),
				req("update", "apps", "deployments", "status", "default", "d")},
			[]request{req("create", "", "pods", "", "default", ""), req("delete", "apps", "deployments", "", "default", "d")}},
		{"generic-garbage-collector", sa("generic-garbage-collector"),
			[]request{req("delete", "apps", "replicasets", "", "default", "rs"), req("patch", "", "pods", "", "default", "p"), req("list", "example.com", "widgets", "", "", "")},
			[]request{req("create", "", "pods", "", "default", "")}},
		{"namespace-controller", sa("namespace-controller"),
			[]request{req("update", "", "namespaces", "status", "", "ns"), req("update", "", "namespaces", "finalize", "", "ns"), req("delete", "", "namespaces", "", "", "ns"),
				req("deletecollection", "apps", "deployments", "", "ns", ""), req("list", "", "pods", "", "ns", "")},
			[]request{req("create", "", "pods", "", "ns", ""), req("update", "", "pods", "", "ns", "p")}},
		{"endpoint-controller", sa("endpoint-controller"),
			[]request{req("create", "", "endpoints", "", "default", ""), req("update", "", "endpoints", "", "default", "web"), req("delete", "", "endpoints", "", "default", "web")},
			[]request{req("update", "", "services", "", "default", "web")}},
		{"endpointslice-controller", sa("endpointslice-controller"),
			[]request{req("create", "discovery.k8s.io", "endpointslices", "", "default", ""), req("delete", "discovery.k8s.io", "endpointslices", "", "default", "s"),
				req("update", "", "services", "finalizers", "default", "web")},
			[]request{req("update", "", "services", "", "default", "web"), req("create", "", "endpoints", "", "default", "")}},
		{"service-account-controller", sa("service-account-controller"),
			[]request{req("create", "", "serviceaccounts", "", "default", "")},
			[]request{req("delete", "", "serviceaccounts", "", "default", "default"), req("create", "", "secrets", "", "default", "")}},
		{"root-ca-cert-publisher", sa("root-ca-cert-publisher"),
			[]request{req("create", "", "configmaps", "", "default", ""), req("update", "", "configmaps", "", "default", "kube-root-ca.crt")},
			[]request{req("delete", "", "configmaps", "", "default", "kube-root-ca.crt")}},
		{"statefulset-controller", sa("statefulset-controller"),
			[]request{req("create", "", "pods", "", "default", ""), req("patch", "", "pods", "", "default", "web-0"), req("create", "", "persistentvolumeclaims", "", "default", ""),
				req("update", "apps", "controllerrevisions", "", "default", "r"), req("update", "apps", "statefulsets", "status", "default", "web")},
			[]request{req("delete", "", "persistentvolumes", "", "", "pv")}},
		{"daemon-set-controller", sa("daemon-set-controller"),
			[]request{req("create", "", "pods", "", "default", ""), req("update", "apps", "controllerrevisions", "", "default", "r"), req("update", "apps", "daemonsets", "status", "default", "ds")},
			[]request{req("update", "", "nodes", "", "", "node1")}},
		{"job-controller", sa("job-controller"),
			[]request{req("create", "", "pods", "", "default", ""), req("delete", "", "pods", "", "default", "p"), req("update", "batch", "jobs", "status", "default", "j")},
			[]request{req("create", "batch", "jobs", "", "default", ""), req("delete", "batch", "jobs", "", "default", "j"), req("delete", "", "nodes", "", "", "node1")}},
		// kplane's job controller deletes Jobs whose TTL expired as
		// upstream's ttl-after-finished controller, whose role may.
		{"ttl-after-finished-controller", sa("ttl-after-finished-controller"),
			[]request{req("get", "batch", "jobs", "", "default", "j"), req("delete", "batch", "jobs", "", "default", "j")},
			[]request{req("delete", "", "pods", "", "default", "p"), req("update", "batch", "jobs", "", "default", "j")}},
		{"cronjob-controller", sa("cronjob-controller"),
			[]request{req("create", "batch", "jobs", "", "default", ""), req("delete", "batch", "jobs", "", "default", "j"), req("update", "batch", "cronjobs", "status", "default", "cj")},
			[]request{req("create", "", "pods", "", "default", "")}},
		{"persistent-volume-binder", sa("persistent-volume-binder"),
			[]request{req("update", "", "persistentvolumes", "", "", "pv"), req("update", "", "persistentvolumes", "status", "", "pv"), req("delete", "", "persistentvolumes", "", "", "pv"),
				req("update", "", "persistentvolumeclaims", "", "default", "c"), req("update", "", "persistentvolumeclaims", "status", "default", "c")},
			// get services was glusterfs's, gone from upstream's role.
			[]request{req("delete", "", "persistentvolumeclaims", "", "default", "c"), req("get", "", "services", "", "default", "web")}},
		{"expand-controller", sa("expand-controller"),
			[]request{req("patch", "", "persistentvolumeclaims", "status", "default", "c"), req("update", "", "persistentvolumes", "", "", "pv")},
			[]request{req("get", "", "services", "", "default", "web"), req("update", "", "persistentvolumeclaims", "", "default", "c")}},
		{"pvc-protection-controller", sa("pvc-protection-controller"),
			[]request{req("update", "", "persistentvolumeclaims", "", "default", "c"), req("update", "", "persistentvolumeclaims", "status", "default", "c"),
				req("list", "", "pods", "", "default", "")},
			[]request{req("delete", "", "persistentvolumeclaims", "", "default", "c"), req("patch", "", "persistentvolumeclaims", "status", "default", "c")}},
		// Controllers of APIs kplane does not serve keep upstream's roles.
		{"resource-claim-controller", sa("resource-claim-controller"),
			[]request{req("create", "resource.k8s.io", "resourceclaims", "", "default", ""), req("patch", "resource.k8s.io", "resourceclaims", "binding", "default", "c"),
				req("update", "", "pods", "finalizers", "default", "p")},
			[]request{req("delete", "", "pods", "", "default", "p"), req("create", "resource.k8s.io", "resourceslices", "", "", "")}},
		{"device-taint-eviction-controller", sa("device-taint-eviction-controller"),
			[]request{req("delete", "", "pods", "", "default", "p"), req("list", "resource.k8s.io", "deviceclasses", "", "", "")},
			[]request{req("update", "resource.k8s.io", "resourceclaims", "", "default", "c")}},
		{"selinux-warning-controller", sa("selinux-warning-controller"),
			[]request{req("list", "storage.k8s.io", "csidrivers", "", "", ""), req("watch", "", "pods", "", "", ""), coreEvent},
			[]request{req("update", "", "pods", "", "default", "p")}},
		{"service-cidrs-controller", sa("service-cidrs-controller"),
			[]request{req("patch", "networking.k8s.io", "servicecidrs", "status", "", "kubernetes"), req("list", "networking.k8s.io", "ipaddresses", "", "", "")},
			[]request{req("delete", "networking.k8s.io", "servicecidrs", "", "", "kubernetes"), req("create", "networking.k8s.io", "ipaddresses", "", "", "")}},
		{"volumeattributesclass-protection-controller", sa("volumeattributesclass-protection-controller"),
			[]request{req("update", "storage.k8s.io", "volumeattributesclasses", "", "", "gold"), req("list", "", "persistentvolumes", "", "", "")},
			[]request{req("delete", "storage.k8s.io", "volumeattributesclasses", "", "", "gold")}},
		{"node-controller (node-lifecycle and taint-eviction)", sa("node-controller"),
			[]request{req("update", "", "nodes", "", "", "node1"), req("update", "", "nodes", "status", "", "node1"), req("update", "", "pods", "status", "default", "p"),
				req("delete", "", "pods", "", "default", "p")},
			[]request{req("create", "", "pods", "", "default", ""), req("delete", "apps", "deployments", "", "default", "d")}},
		{"horizontal-pod-autoscaler", sa("horizontal-pod-autoscaler"),
			[]request{req("get", "apps", "deployments", "scale", "default", "web"), req("update", "apps", "deployments", "scale", "default", "web"),
				req("list", "metrics.k8s.io", "pods", "", "default", ""), req("update", "autoscaling", "horizontalpodautoscalers", "status", "default", "h")},
			[]request{req("update", "apps", "deployments", "", "default", "web")}},
		{"resourcequota-controller", sa("resourcequota-controller"),
			[]request{req("list", "", "pods", "", "default", ""), req("update", "", "resourcequotas", "status", "default", "q")},
			[]request{req("update", "", "resourcequotas", "", "default", "q"), req("get", "", "secrets", "", "default", "s")}},
		{"disruption-controller", sa("disruption-controller"),
			[]request{req("update", "policy", "poddisruptionbudgets", "status", "default", "pdb"), req("update", "", "pods", "status", "default", "p"),
				req("get", "apps", "deployments", "scale", "default", "web")},
			[]request{req("delete", "", "pods", "", "default", "p")}},
		{"hostpath-provisioner", sa(bootstrappolicy.HostPathProvisionerServiceAccount),
			[]request{req("create", "", "persistentvolumes", "", "", ""), req("update", "", "persistentvolumes", "", "", "pv"), req("delete", "", "persistentvolumes", "", "", "pv"),
				req("update", "", "persistentvolumeclaims", "", "default", "c"), coreEvent},
			[]request{req("delete", "", "persistentvolumeclaims", "", "default", "c"), req("create", "", "pods", "", "default", "")}},
		{"clusterrole-aggregation-controller", sa("clusterrole-aggregation-controller"),
			[]request{req("update", "rbac.authorization.k8s.io", "clusterroles", "", "", "admin"), req("escalate", "rbac.authorization.k8s.io", "clusterroles", "", "", "admin")},
			[]request{req("update", "rbac.authorization.k8s.io", "clusterrolebindings", "", "", "cluster-admin")}},

		// People.
		{"a user with no bindings", user("alice"),
			[]request{req("create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", ""), req("create", "authorization.k8s.io", "selfsubjectrulesreviews", "", "", ""),
				req("create", "authentication.k8s.io", "selfsubjectreviews", "", "", "")},
			[]request{req("list", "", "pods", "", "default", ""), req("get", "", "configmaps", "", "kube-system", "other")}},
	}
	for _, tc := range tests {
		for _, r := range tc.allow {
			if !allowed(tc.user, r) {
				t.Errorf("%s (%s) is refused %s; its role should allow it", tc.who, tc.user.Name, r)
			}
		}
		for _, r := range tc.forbid {
			if allowed(tc.user, r) {
				t.Errorf("%s (%s) is allowed %s; its role should not", tc.who, tc.user.Name, r)
			}
		}
	}
}

// admin, edit and view as a RoleBinding in a namespace gives them, with
// their aggregated rules.
func TestUserFacingRoles(t *testing.T) {
	// rulesOf follows aggregation through every level (view's rules reach
	// admin through edit), as the aggregation controller's writes do.
	all := bootstrappolicy.ClusterRoles()
	var rulesOf func(role string) []api.PolicyRule
	rulesOf = func(role string) []api.PolicyRule {
		var rules []api.PolicyRule
		for _, r := range all {
			if r.Name != role {
				continue
			}
			if r.AggregationRule == nil {
				return r.Rules
			}
			for _, sel := range r.AggregationRule.ClusterRoleSelectors {
				for _, other := range all {
					matches := other.Name != role
					for k, v := range sel.MatchLabels {
						matches = matches && other.Labels[k] == v
					}
					if matches {
						rules = append(rules, rulesOf(other.Name)...)
					}
				}
			}
		}
		return rules
	}
	can := func(role string, r request) bool {
		a := authorizer.Attributes{User: user("alice"), Verb: r.verb, ResourceRequest: true, APIGroup: r.group,
			Namespace: r.namespace, Resource: r.resource, Subresource: r.subresource, Name: r.name}
		return rbac.RulesAllow(a, rulesOf(role))
	}
	for _, tc := range []struct {
		role   string
		r      request
		allows bool
	}{
		// edit: upstream's recorded aggregate-to-edit.
		{"edit", req("create", "coordination.k8s.io", "leases", "", "team", ""), true},
		{"edit", req("update", "coordination.k8s.io", "leases", "", "team", "my-operator"), true},
		{"edit", req("create", "", "pods", "eviction", "team", "p"), true},
		{"edit", req("create", "", "serviceaccounts", "token", "team", "default"), true},
		{"edit", req("create", "", "events", "", "team", ""), true},
		{"edit", req("create", "", "endpoints", "", "team", ""), false},
		{"edit", req("create", "rbac.authorization.k8s.io", "rolebindings", "", "team", ""), false},
		{"admin", req("create", "coordination.k8s.io", "leases", "", "team", ""), true},
		{"admin", req("create", "rbac.authorization.k8s.io", "rolebindings", "", "team", ""), true},
		// view: endpointslices yes, leases and secrets no.
		{"view", req("list", "discovery.k8s.io", "endpointslices", "", "team", ""), true},
		{"view", req("get", "coordination.k8s.io", "leases", "", "team", "x"), false},
		{"view", req("get", "", "secrets", "", "team", "s"), false},
	} {
		if got := can(tc.role, tc.r); got != tc.allows {
			t.Errorf("%s: %s allowed = %v, want %v", tc.role, tc.r, got, tc.allows)
		}
	}
}

// The health and discovery URLs are open to everyone; metrics are not.
func TestNonResourceRights(t *testing.T) {
	anonymous := auth.User{Name: auth.AnonymousUserName, Groups: []string{auth.UnauthenticatedGroup}}
	alice := user("alice")
	url := func(u auth.User, path string) bool {
		return rbac.RulesAllow(authorizer.Attributes{User: u, Verb: "get", Path: path}, policyRules(u, ""))
	}
	for _, tc := range []struct {
		user auth.User
		path string
		want bool
	}{
		{anonymous, "/healthz", true}, {anonymous, "/version", true}, {anonymous, "/api", false},
		{alice, "/api", true}, {alice, "/apis/apps/v1", true}, {alice, "/openapi/v3", true}, {alice, "/metrics", false},
		{user("prometheus", "system:monitoring"), "/metrics", true},
		{sa("default"), "/openid/v1/jwks", true}, {alice, "/openid/v1/jwks", false},
	} {
		if got := url(tc.user, tc.path); got != tc.want {
			t.Errorf("%s GET %s allowed = %v, want %v", tc.user.Name, tc.path, got, tc.want)
		}
	}
}
