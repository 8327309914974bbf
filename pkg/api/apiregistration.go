package api

// This file holds apiregistration.k8s.io/v1 APIService: the object that
// tells the apiserver's aggregation layer which server answers an API group
// and version. The built-in groups are registered as Local (the apiserver
// itself serves them); an add-on such as metrics-server registers its group
// with a Service, and the aggregator proxies that group's requests to it.

// APIService registers one group/version with the aggregator. Its name is
// "<version>.<group>", e.g. "v1beta1.metrics.k8s.io" ("v1." for the core
// group's v1).
type APIService struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       APIServiceSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     APIServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// APIServiceSpec says who serves the group/version and how to trust it.
type APIServiceSpec struct {
	// Service is where the group is served; nil means Local (this
	// apiserver).
	Service *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// Group is the API group name this server hosts.
	Group string `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	// Version is the API version this server hosts, e.g. "v1".
	Version string `json:"version,omitempty" protobuf:"bytes,3,opt,name=version"`
	// InsecureSkipTLSVerify skips checking the server's certificate
	// (metrics-server's own manifest sets it).
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty" protobuf:"varint,4,opt,name=insecureSkipTLSVerify"`
	// CABundle is the PEM that signs the server's certificate.
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,5,opt,name=caBundle"`
	// GroupPriorityMinimum and VersionPriority order groups and versions
	// in discovery (higher first).
	GroupPriorityMinimum int32 `json:"groupPriorityMinimum" protobuf:"varint,7,opt,name=groupPriorityMinimum"`
	VersionPriority      int32 `json:"versionPriority" protobuf:"varint,8,opt,name=versionPriority"`
}

// ServiceReference names a Service and port, as in APIService and webhook
// configurations.
type ServiceReference struct {
	// Namespace is the namespace of the Service.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	// Name is the name of the Service.
	Name string `json:"name,omitempty" protobuf:"bytes,2,opt,name=name"`
	// Port is the Service port (its `port`, not its targetPort) to reach;
	// 443 when unset. kplane dials 127.0.0.1 on that port's targetPort.
	Port *int32 `json:"port,omitempty" protobuf:"varint,3,opt,name=port"`
}

// APIServiceStatus carries the Available condition.
type APIServiceStatus struct {
	Conditions []APIServiceCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}

// APIServiceConditionType names an APIService condition.
type APIServiceConditionType string

// APIServiceAvailable is True when the aggregator can reach the server and
// its discovery answers (`kubectl get apiservices` shows it).
const APIServiceAvailable APIServiceConditionType = "Available"

// APIServiceCondition is one condition of an APIService.
type APIServiceCondition struct {
	Type               APIServiceConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	Status             ConditionStatus         `json:"status" protobuf:"bytes,2,opt,name=status"`
	LastTransitionTime Time                    `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	Reason             string                  `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	Message            string                  `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}
