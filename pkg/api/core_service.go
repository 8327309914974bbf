package api

// This file holds Service, a stable virtual IP and DNS name in front of a
// set of pods, and Endpoints, the addresses of those pods that the endpoints
// controller keeps up to date for kube-proxy and DNS.

// Service gives the pods its selector matches one stable address. kube-proxy
// forwards the ClusterIP's ports to the ready pods listed in the Service's
// Endpoints; a headless Service (clusterIP None) only gets DNS records.
type Service struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec       ServiceSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status     ServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ServiceType says how a Service is exposed.
type ServiceType string

// The service types; ClusterIP is the default.
const (
	ServiceTypeClusterIP    ServiceType = "ClusterIP"
	ServiceTypeNodePort     ServiceType = "NodePort"
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
	ServiceTypeExternalName ServiceType = "ExternalName"
)

// ClusterIPNone is the clusterIP of a headless Service.
const ClusterIPNone = "None"

// ServiceAffinity says whether a client sticks to one backend pod.
type ServiceAffinity string

// The session affinities; None is the default.
const (
	ServiceAffinityClientIP ServiceAffinity = "ClientIP"
	ServiceAffinityNone     ServiceAffinity = "None"
)

// DefaultClientIPServiceAffinitySeconds is the default ClientIP stickiness (3 hours).
const DefaultClientIPServiceAffinitySeconds int32 = 10800

// ServiceExternalTrafficPolicy says whether external traffic may be forwarded to other nodes.
type ServiceExternalTrafficPolicy string

// The external traffic policies.
const (
	ServiceExternalTrafficPolicyCluster ServiceExternalTrafficPolicy = "Cluster"
	ServiceExternalTrafficPolicyLocal   ServiceExternalTrafficPolicy = "Local"
)

// ServiceInternalTrafficPolicy says whether in-cluster traffic may be forwarded to other nodes.
type ServiceInternalTrafficPolicy string

// The internal traffic policies.
const (
	ServiceInternalTrafficPolicyCluster ServiceInternalTrafficPolicy = "Cluster"
	ServiceInternalTrafficPolicyLocal   ServiceInternalTrafficPolicy = "Local"
)

// IPFamily is IPv4 or IPv6.
type IPFamily string

// The IP families.
const (
	IPv4Protocol IPFamily = "IPv4"
	IPv6Protocol IPFamily = "IPv6"
)

// IPFamilyPolicy says how many IP families a Service gets.
type IPFamilyPolicy string

// The IP family policies.
const (
	IPFamilyPolicySingleStack      IPFamilyPolicy = "SingleStack"
	IPFamilyPolicyPreferDualStack  IPFamilyPolicy = "PreferDualStack"
	IPFamilyPolicyRequireDualStack IPFamilyPolicy = "RequireDualStack"
)

// ServiceSpec is the desired shape of a Service.
type ServiceSpec struct {
	Ports                         []ServicePort                 `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"port" protobuf:"bytes,1,rep,name=ports"`
	Selector                      map[string]string             `json:"selector,omitempty" protobuf:"bytes,2,rep,name=selector" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	ClusterIP                     string                        `json:"clusterIP,omitempty" protobuf:"bytes,3,opt,name=clusterIP"`
	ClusterIPs                    []string                      `json:"clusterIPs,omitempty" protobuf:"bytes,18,opt,name=clusterIPs"`
	Type                          ServiceType                   `json:"type,omitempty" protobuf:"bytes,4,opt,name=type,casttype=ServiceType"`
	ExternalIPs                   []string                      `json:"externalIPs,omitempty" protobuf:"bytes,5,rep,name=externalIPs"`
	SessionAffinity               ServiceAffinity               `json:"sessionAffinity,omitempty" protobuf:"bytes,7,opt,name=sessionAffinity,casttype=ServiceAffinity"`
	LoadBalancerIP                string                        `json:"loadBalancerIP,omitempty" protobuf:"bytes,8,opt,name=loadBalancerIP"`
	LoadBalancerSourceRanges      []string                      `json:"loadBalancerSourceRanges,omitempty" protobuf:"bytes,9,opt,name=loadBalancerSourceRanges"`
	ExternalName                  string                        `json:"externalName,omitempty" protobuf:"bytes,10,opt,name=externalName"`
	ExternalTrafficPolicy         ServiceExternalTrafficPolicy  `json:"externalTrafficPolicy,omitempty" protobuf:"bytes,11,opt,name=externalTrafficPolicy"`
	HealthCheckNodePort           int32                         `json:"healthCheckNodePort,omitempty" protobuf:"varint,12,opt,name=healthCheckNodePort"`
	PublishNotReadyAddresses      bool                          `json:"publishNotReadyAddresses,omitempty" protobuf:"varint,13,opt,name=publishNotReadyAddresses"`
	SessionAffinityConfig         *SessionAffinityConfig        `json:"sessionAffinityConfig,omitempty" protobuf:"bytes,14,opt,name=sessionAffinityConfig"`
	IPFamilies                    []IPFamily                    `json:"ipFamilies,omitempty" protobuf:"bytes,19,opt,name=ipFamilies,casttype=IPFamily"`
	IPFamilyPolicy                *IPFamilyPolicy               `json:"ipFamilyPolicy,omitempty" protobuf:"bytes,17,opt,name=ipFamilyPolicy,casttype=IPFamilyPolicy"`
	AllocateLoadBalancerNodePorts *bool                         `json:"allocateLoadBalancerNodePorts,omitempty" protobuf:"varint,20,opt,name=allocateLoadBalancerNodePorts"`
	LoadBalancerClass             *string                       `json:"loadBalancerClass,omitempty" protobuf:"bytes,21,opt,name=loadBalancerClass"`
	InternalTrafficPolicy         *ServiceInternalTrafficPolicy `json:"internalTrafficPolicy,omitempty" protobuf:"bytes,22,opt,name=internalTrafficPolicy"`
	TrafficDistribution           *string                       `json:"trafficDistribution,omitempty" protobuf:"bytes,23,opt,name=trafficDistribution"`
}

// ServicePort maps a Service port to a target port on the pods (a number or
// a named container port).
type ServicePort struct {
	Name        string      `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	Protocol    Protocol    `json:"protocol,omitempty" protobuf:"bytes,2,opt,name=protocol,casttype=Protocol"`
	AppProtocol *string     `json:"appProtocol,omitempty" protobuf:"bytes,6,opt,name=appProtocol"`
	Port        int32       `json:"port" protobuf:"varint,3,opt,name=port"`
	TargetPort  IntOrString `json:"targetPort,omitempty" protobuf:"bytes,4,opt,name=targetPort"`
	NodePort    int32       `json:"nodePort,omitempty" protobuf:"varint,5,opt,name=nodePort"`
}

// SessionAffinityConfig configures session affinity.
type SessionAffinityConfig struct {
	ClientIP *ClientIPConfig `json:"clientIP,omitempty" protobuf:"bytes,1,opt,name=clientIP"`
}

// ClientIPConfig configures ClientIP session affinity.
type ClientIPConfig struct {
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,1,opt,name=timeoutSeconds"`
}

// ServiceStatus is the observed state of a Service.
type ServiceStatus struct {
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitempty" protobuf:"bytes,1,opt,name=loadBalancer"`
	Conditions   []Condition        `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
}

// LoadBalancerStatus lists a load balancer's ingress points.
type LoadBalancerStatus struct {
	Ingress []LoadBalancerIngress `json:"ingress,omitempty" protobuf:"bytes,1,rep,name=ingress"`
}

// LoadBalancerIngress is one ingress point of a load balancer.
type LoadBalancerIngress struct {
	IP       string       `json:"ip,omitempty" protobuf:"bytes,1,opt,name=ip"`
	Hostname string       `json:"hostname,omitempty" protobuf:"bytes,2,opt,name=hostname"`
	IPMode   *string      `json:"ipMode,omitempty" protobuf:"bytes,3,opt,name=ipMode"`
	Ports    []PortStatus `json:"ports,omitempty" protobuf:"bytes,4,rep,name=ports"`
}

// PortStatus is the state of one load balancer port.
type PortStatus struct {
	Port     int32    `json:"port" protobuf:"varint,1,opt,name=port"`
	Protocol Protocol `json:"protocol" protobuf:"bytes,2,opt,name=protocol,casttype=Protocol"`
	Error    *string  `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// Endpoints lists the addresses behind a Service, grouped into subsets that
// share ports. It has the Service's name; the endpoints controller writes it.
type Endpoints struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Subsets    []EndpointSubset `json:"subsets,omitempty" protobuf:"bytes,2,rep,name=subsets"`
}

// EndpointSubset is a set of addresses that all expose the same ports.
type EndpointSubset struct {
	Addresses         []EndpointAddress `json:"addresses,omitempty" protobuf:"bytes,1,rep,name=addresses"`
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty" protobuf:"bytes,2,rep,name=notReadyAddresses"`
	Ports             []EndpointPort    `json:"ports,omitempty" protobuf:"bytes,3,rep,name=ports"`
}

// EndpointAddress is one backend, usually a pod.
type EndpointAddress struct {
	IP        string           `json:"ip" protobuf:"bytes,1,opt,name=ip"`
	Hostname  string           `json:"hostname,omitempty" protobuf:"bytes,3,opt,name=hostname"`
	NodeName  *string          `json:"nodeName,omitempty" protobuf:"bytes,4,opt,name=nodeName"`
	TargetRef *ObjectReference `json:"targetRef,omitempty" protobuf:"bytes,2,opt,name=targetRef"`
}

// EndpointPort is one port the addresses of a subset expose.
type EndpointPort struct {
	Name        string   `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	Port        int32    `json:"port" protobuf:"varint,2,opt,name=port"`
	Protocol    Protocol `json:"protocol,omitempty" protobuf:"bytes,3,opt,name=protocol,casttype=Protocol"`
	AppProtocol *string  `json:"appProtocol,omitempty" protobuf:"bytes,4,opt,name=appProtocol"`
}
