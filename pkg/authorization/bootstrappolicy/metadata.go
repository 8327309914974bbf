package bootstrappolicy

import (
	"maps"

	"kplane/pkg/api"
)

const (
	// BootstrappingLabel marks every object of the bootstrap policy
	// (`kubectl get clusterroles -l kubernetes.io/bootstrapping=rbac-defaults`).
	BootstrappingLabel = "kubernetes.io/bootstrapping"
	// BootstrappingValue is BootstrappingLabel's value.
	BootstrappingValue = "rbac-defaults"
	// AutoUpdateAnnotation says whether the apiserver may add back at start
	// what the policy has and the object lacks: "true" (the default on
	// every bootstrap object) or "false" (the administrator's own version
	// wins).
	AutoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate"
)

// The label keys that make a ClusterRole's rules part of admin, edit or
// view (their aggregationRules select them).
const (
	AggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	AggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	AggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
)

// defaultMetadata returns meta with the bootstrapping label and the
// autoupdate annotation added to the labels it already has.
func defaultMetadata(meta api.ObjectMeta) api.ObjectMeta {
	labels := maps.Clone(meta.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[BootstrappingLabel] = BootstrappingValue
	annotations := maps.Clone(meta.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[AutoUpdateAnnotation] = "true"
	meta.Labels, meta.Annotations = labels, annotations
	return meta
}

// clusterRole is a ClusterRole of the policy with its type and metadata set.
func clusterRole(name string, labels map[string]string, rules ...api.PolicyRule) api.ClusterRole {
	return api.ClusterRole{
		TypeMeta:   api.TypeMeta{APIVersion: rbacGroup + "/v1", Kind: "ClusterRole"},
		ObjectMeta: defaultMetadata(api.ObjectMeta{Name: name, Labels: labels}),
		Rules:      rules,
	}
}

// aggregatedClusterRole is a ClusterRole whose rules are the union of the
// ClusterRoles labelled selectLabel=true; the clusterrole-aggregation
// controller fills them in.
func aggregatedClusterRole(name string, labels map[string]string, selectLabel string) api.ClusterRole {
	role := clusterRole(name, labels)
	role.AggregationRule = &api.AggregationRule{ClusterRoleSelectors: []api.LabelSelector{
		{MatchLabels: map[string]string{selectLabel: "true"}}}}
	return role
}

// clusterRoleBinding binds the ClusterRole called name (the binding has the
// same name, as upstream's NewClusterBinding does) to subjects.
func clusterRoleBinding(name string, subjects ...api.Subject) api.ClusterRoleBinding {
	return namedClusterRoleBinding(name, name, subjects...)
}

// namedClusterRoleBinding binds role under a binding of another name.
func namedClusterRoleBinding(name, role string, subjects ...api.Subject) api.ClusterRoleBinding {
	return api.ClusterRoleBinding{
		TypeMeta:   api.TypeMeta{APIVersion: rbacGroup + "/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: defaultMetadata(api.ObjectMeta{Name: name}),
		RoleRef:    api.RoleRef{APIGroup: rbacGroup, Kind: "ClusterRole", Name: role},
		Subjects:   subjects,
	}
}

// role is a namespaced Role of the policy.
func role(namespace, name string, rules ...api.PolicyRule) api.Role {
	return api.Role{
		TypeMeta:   api.TypeMeta{APIVersion: rbacGroup + "/v1", Kind: "Role"},
		ObjectMeta: defaultMetadata(api.ObjectMeta{Name: name, Namespace: namespace}),
		Rules:      rules,
	}
}

// roleBinding binds the Role (kind "Role") or ClusterRole named roleName in
// namespace to subjects.
func roleBinding(namespace, name, kind, roleName string, subjects ...api.Subject) api.RoleBinding {
	return api.RoleBinding{
		TypeMeta:   api.TypeMeta{APIVersion: rbacGroup + "/v1", Kind: "RoleBinding"},
		ObjectMeta: defaultMetadata(api.ObjectMeta{Name: name, Namespace: namespace}),
		RoleRef:    api.RoleRef{APIGroup: rbacGroup, Kind: kind, Name: roleName},
		Subjects:   subjects,
	}
}

// userSubject names a user.
func userSubject(name string) api.Subject {
	return api.Subject{Kind: api.UserKind, APIGroup: rbacGroup, Name: name}
}

// groupSubject names a group.
func groupSubject(name string) api.Subject {
	return api.Subject{Kind: api.GroupKind, APIGroup: rbacGroup, Name: name}
}

// serviceAccountSubject names a ServiceAccount (whose subjects carry no
// apiGroup).
func serviceAccountSubject(namespace, name string) api.Subject {
	return api.Subject{Kind: api.ServiceAccountKind, Namespace: namespace, Name: name}
}
