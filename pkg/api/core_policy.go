package api

// This file holds the per-namespace resource policies the apiserver enforces
// at admission: ResourceQuota (totals) and LimitRange (per-object bounds and
// defaults).

// ResourceQuota caps the total resources a namespace may use; the apiserver
// rejects a create that would push usage above hard, and the resource quota
// controller keeps status.used current.
type ResourceQuota struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       ResourceQuotaSpec   `json:"spec,omitempty"`
	Status     ResourceQuotaStatus `json:"status,omitempty"`
}

// ResourceQuotaScope restricts which objects a quota counts.
type ResourceQuotaScope string

// The quota scopes.
const (
	ResourceQuotaScopeTerminating    ResourceQuotaScope = "Terminating"
	ResourceQuotaScopeNotTerminating ResourceQuotaScope = "NotTerminating"
	ResourceQuotaScopeBestEffort     ResourceQuotaScope = "BestEffort"
	ResourceQuotaScopeNotBestEffort  ResourceQuotaScope = "NotBestEffort"
	ResourceQuotaScopePriorityClass  ResourceQuotaScope = "PriorityClass"
)

// ResourceQuotaSpec is the limits of a quota and which objects it counts.
type ResourceQuotaSpec struct {
	Hard          ResourceList         `json:"hard,omitempty"`
	Scopes        []ResourceQuotaScope `json:"scopes,omitempty"`
	ScopeSelector *ScopeSelector       `json:"scopeSelector,omitempty"`
}

// ScopeSelector selects quota scopes by expression.
type ScopeSelector struct {
	MatchExpressions []ScopedResourceSelectorRequirement `json:"matchExpressions,omitempty"`
}

// ScopedResourceSelectorRequirement is one scope expression, e.g. PriorityClass In (high).
type ScopedResourceSelectorRequirement struct {
	ScopeName ResourceQuotaScope `json:"scopeName"`
	Operator  string             `json:"operator"`
	Values    []string           `json:"values,omitempty"`
}

// ResourceQuotaStatus is the enforced limits and the current usage.
type ResourceQuotaStatus struct {
	Hard ResourceList `json:"hard,omitempty"`
	Used ResourceList `json:"used,omitempty"`
}

// LimitRange bounds, and supplies defaults for, the resources of each pod,
// container or claim in a namespace.
type LimitRange struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       LimitRangeSpec `json:"spec,omitempty"`
}

// LimitType says what kind of object a LimitRangeItem applies to.
type LimitType string

// The limit types.
const (
	LimitTypePod                   LimitType = "Pod"
	LimitTypeContainer             LimitType = "Container"
	LimitTypePersistentVolumeClaim LimitType = "PersistentVolumeClaim"
)

// LimitRangeSpec lists the limits of a LimitRange.
type LimitRangeSpec struct {
	Limits []LimitRangeItem `json:"limits"`
}

// LimitRangeItem is the bounds and defaults for one kind of object.
type LimitRangeItem struct {
	Type                 LimitType    `json:"type"`
	Max                  ResourceList `json:"max,omitempty"`
	Min                  ResourceList `json:"min,omitempty"`
	Default              ResourceList `json:"default,omitempty"`
	DefaultRequest       ResourceList `json:"defaultRequest,omitempty"`
	MaxLimitRequestRatio ResourceList `json:"maxLimitRequestRatio,omitempty"`
}
