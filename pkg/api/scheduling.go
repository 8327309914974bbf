package api

// This file holds the scheduling.k8s.io/v1 PriorityClass: a name a pod
// gives in spec.priorityClassName, which the Priority admission plugin
// turns into the number in spec.priority that orders the scheduler's queue.

// PriorityClass maps a name to a pod priority. Pods name it in
// spec.priorityClassName; on create the apiserver copies its value and
// preemption policy into the pod. It is cluster-scoped, and its value and
// preemption policy cannot change once it exists: pods already carry them.
type PriorityClass struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Value is the priority pods of this class get; the higher, the sooner
	// the scheduler tries them. User-defined classes may go up to
	// 1000000000; values above are kept for the system- classes.
	Value int32 `json:"value" protobuf:"varint,2,opt,name=value"`
	// GlobalDefault makes this class the one pods without a
	// priorityClassName get. Only one class may be the default.
	GlobalDefault bool `json:"globalDefault,omitempty" protobuf:"varint,3,opt,name=globalDefault"`
	// Description says, for people, when to use the class.
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	// PreemptionPolicy is copied into the pods of the class: whether they
	// may evict lower-priority pods to make room (PreemptLowerPriority, the
	// default) or must wait (Never). kplane's scheduler does not preempt.
	PreemptionPolicy *PreemptionPolicy `json:"preemptionPolicy,omitempty" protobuf:"bytes,5,opt,name=preemptionPolicy,casttype=PreemptionPolicy"`
}

// Limits and names of pod priorities, as upstream's pkg/apis/scheduling.
const (
	// HighestUserDefinablePriority is the largest value a PriorityClass
	// not named system-… may have; larger ones are the system's.
	HighestUserDefinablePriority int32 = 1000000000
	// SystemCriticalPriority is where the system classes' values begin.
	SystemCriticalPriority = 2 * HighestUserDefinablePriority
	// SystemPriorityClassPrefix starts the name of every system class;
	// users may not create classes named so.
	SystemPriorityClassPrefix = "system-"
	// SystemClusterCritical is for add-ons the cluster cannot work
	// without, which may still move to another node (DNS, metrics).
	SystemClusterCritical = SystemPriorityClassPrefix + "cluster-critical"
	// SystemNodeCritical is for pods a node cannot work without, which
	// must not leave it (kube-proxy, CNI agents).
	SystemNodeCritical = SystemPriorityClassPrefix + "node-critical"
	// DefaultPriorityWhenNoDefaultClassExists is the priority of a pod that
	// names no class when no class is the global default.
	DefaultPriorityWhenNoDefaultClassExists int32 = 0
)

// SystemPriorityClasses returns the classes every cluster has from its
// first start, created by the apiserver and protected from deletion, with
// upstream's values and descriptions. The slice and its objects are new on
// every call.
func SystemPriorityClasses() []*PriorityClass {
	return []*PriorityClass{
		{
			ObjectMeta:  ObjectMeta{Name: SystemNodeCritical},
			Value:       SystemCriticalPriority + 1000,
			Description: "Used for system critical pods that must not be moved from their current node.",
		},
		{
			ObjectMeta:  ObjectMeta{Name: SystemClusterCritical},
			Value:       SystemCriticalPriority,
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
		},
	}
}

// IsSystemPriorityClassName reports whether name is one of the system
// classes' names.
func IsSystemPriorityClassName(name string) bool {
	return name == SystemNodeCritical || name == SystemClusterCritical
}
