package api

// This file holds the rbac.authorization.k8s.io/v1 resources: Roles list
// what may be done, RoleBindings grant a Role to users, groups and service
// accounts.

// RBACGroupName is the API group of the RBAC resources.
const RBACGroupName = "rbac.authorization.k8s.io"

// PolicyRule allows verbs on resources (or non-resource URLs).
type PolicyRule struct {
	Verbs           []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	APIGroups       []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	Resources       []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	ResourceNames   []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,5,rep,name=nonResourceURLs"`
}

// The kinds of Subject.
const (
	ServiceAccountKind = "ServiceAccount"
	UserKind           = "User"
	GroupKind          = "Group"
)

// Subject is who a binding grants a role to: a User, Group or ServiceAccount.
type Subject struct {
	Kind      string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	APIGroup  string `json:"apiGroup,omitempty" protobuf:"bytes,2,opt,name=apiGroup"`
	Name      string `json:"name" protobuf:"bytes,3,opt,name=name"`
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// RoleRef names the Role or ClusterRole a binding grants.
type RoleRef struct {
	APIGroup string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	Kind     string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	Name     string `json:"name" protobuf:"bytes,3,opt,name=name"`
}

// Role is a set of permissions within one namespace.
type Role struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Rules      []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
}

// RoleBinding grants a Role (or a ClusterRole, limited to this namespace) to subjects.
type RoleBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Subjects   []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	RoleRef    RoleRef   `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// ClusterRole is a set of permissions across the cluster, or a reusable role for RoleBindings.
type ClusterRole struct {
	TypeMeta        `json:",inline"`
	ObjectMeta      `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Rules           []PolicyRule     `json:"rules" protobuf:"bytes,2,rep,name=rules"`
	AggregationRule *AggregationRule `json:"aggregationRule,omitempty" protobuf:"bytes,3,opt,name=aggregationRule"`
}

// AggregationRule builds a ClusterRole's rules from the ClusterRoles its selectors match.
type AggregationRule struct {
	ClusterRoleSelectors []LabelSelector `json:"clusterRoleSelectors,omitempty" protobuf:"bytes,1,rep,name=clusterRoleSelectors"`
}

// ClusterRoleBinding grants a ClusterRole to subjects cluster-wide.
type ClusterRoleBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Subjects   []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	RoleRef    RoleRef   `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}
