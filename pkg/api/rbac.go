package api

// This file holds the rbac.authorization.k8s.io/v1 resources: Roles list
// what may be done, RoleBindings grant a Role to users, groups and service
// accounts.

// RBACGroupName is the API group of the RBAC resources.
const RBACGroupName = "rbac.authorization.k8s.io"

// PolicyRule allows verbs on resources (or non-resource URLs).
type PolicyRule struct {
	Verbs           []string `json:"verbs"`
	APIGroups       []string `json:"apiGroups,omitempty"`
	Resources       []string `json:"resources,omitempty"`
	ResourceNames   []string `json:"resourceNames,omitempty"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

// The kinds of Subject.
const (
	ServiceAccountKind = "ServiceAccount"
	UserKind           = "User"
	GroupKind          = "Group"
)

// Subject is who a binding grants a role to: a User, Group or ServiceAccount.
type Subject struct {
	Kind      string `json:"kind"`
	APIGroup  string `json:"apiGroup,omitempty"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// RoleRef names the Role or ClusterRole a binding grants.
type RoleRef struct {
	APIGroup string `json:"apiGroup"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
}

// Role is a set of permissions within one namespace.
type Role struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Rules      []PolicyRule `json:"rules"`
}

// RoleBinding grants a Role (or a ClusterRole, limited to this namespace) to subjects.
type RoleBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Subjects   []Subject `json:"subjects,omitempty"`
	RoleRef    RoleRef   `json:"roleRef"`
}

// ClusterRole is a set of permissions across the cluster, or a reusable role for RoleBindings.
type ClusterRole struct {
	TypeMeta        `json:",inline"`
	ObjectMeta      `json:"metadata,omitempty"`
	Rules           []PolicyRule     `json:"rules"`
	AggregationRule *AggregationRule `json:"aggregationRule,omitempty"`
}

// AggregationRule builds a ClusterRole's rules from the ClusterRoles its selectors match.
type AggregationRule struct {
	ClusterRoleSelectors []LabelSelector `json:"clusterRoleSelectors,omitempty"`
}

// ClusterRoleBinding grants a ClusterRole to subjects cluster-wide.
type ClusterRoleBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Subjects   []Subject `json:"subjects,omitempty"`
	RoleRef    RoleRef   `json:"roleRef"`
}
