package api

// This file holds Service, a stable virtual IP and DNS name in front of a
// set of pods, and Endpoints, the addresses of those pods that the endpoints
// controller keeps up to date for kube-proxy and DNS.

// Service gives the pods its selector matches one stable address. kube-proxy
// forwards the ClusterIP's ports to the ready pods listed in the Service's
// Endpoints; a headless Service (clusterIP None) only gets DNS records.
type Service struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Spec       ServiceSpec   `json:"spec,omitempty"`
	Status     ServiceStatus `json:"status,omitempty"`
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
	Ports                         []ServicePort                 `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"port"`
	Selector                      map[string]string             `json:"selector,omitempty"`
	ClusterIP                     string                        `json:"clusterIP,omitempty"`
	ClusterIPs                    []string                      `json:"clusterIPs,omitempty"`
	Type                          ServiceType                   `json:"type,omitempty"`
	ExternalIPs                   []string                      `json:"externalIPs,omitempty"`
	SessionAffinity               ServiceAffinity               `json:"sessionAffinity,omitempty"`
	LoadBalancerIP                string                        `json:"loadBalancerIP,omitempty"`
	LoadBalancerSourceRanges      []string                      `json:"loadBalancerSourceRanges,omitempty"`
	ExternalName                  string                        `json:"externalName,omitempty"`
	ExternalTrafficPolicy         ServiceExternalTrafficPolicy  `json:"externalTrafficPolicy,omitempty"`
	HealthCheckNodePort           int32                         `json:"healthCheckNodePort,omitempty"`
	PublishNotReadyAddresses      bool                          `json:"publishNotReadyAddresses,omitempty"`
	SessionAffinityConfig         *SessionAffinityConfig        `json:"sessionAffinityConfig,omitempty"`
	IPFamilies                    []IPFamily                    `json:"ipFamilies,omitempty"`
	IPFamilyPolicy                *IPFamilyPolicy               `json:"ipFamilyPolicy,omitempty"`
	AllocateLoadBalancerNodePorts *bool                         `json:"allocateLoadBalancerNodePorts,omitempty"`
	LoadBalancerClass             *string                       `json:"loadBalancerClass,omitempty"`
	InternalTrafficPolicy         *ServiceInternalTrafficPolicy `json:"internalTrafficPolicy,omitempty"`
	TrafficDistribution           *string                       `json:"trafficDistribution,omitempty"`
}

// ServicePort maps a Service port to a target port on the pods (a number or
// a named container port).
type ServicePort struct {
	Name        string      `json:"name,omitempty"`
	Protocol    Protocol    `json:"protocol,omitempty"`
	AppProtocol *string     `json:"appProtocol,omitempty"`
	Port        int32       `json:"port"`
	TargetPort  IntOrString `json:"targetPort,omitempty"`
	NodePort    int32       `json:"nodePort,omitempty"`
}

// SessionAffinityConfig configures session affinity.
type SessionAffinityConfig struct {
	ClientIP *ClientIPConfig `json:"clientIP,omitempty"`
}

// ClientIPConfig configures ClientIP session affinity.
type ClientIPConfig struct {
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
}

// ServiceStatus is the observed state of a Service.
type ServiceStatus struct {
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitempty"`
	Conditions   []Condition        `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// LoadBalancerStatus lists a load balancer's ingress points.
type LoadBalancerStatus struct {
	Ingress []LoadBalancerIngress `json:"ingress,omitempty"`
}

// LoadBalancerIngress is one ingress point of a load balancer.
type LoadBalancerIngress struct {
	IP       string       `json:"ip,omitempty"`
	Hostname string       `json:"hostname,omitempty"`
	IPMode   *string      `json:"ipMode,omitempty"`
	Ports    []PortStatus `json:"ports,omitempty"`
}

// PortStatus is the state of one load balancer port.
type PortStatus struct {
	Port     int32    `json:"port"`
	Protocol Protocol `json:"protocol"`
	Error    *string  `json:"error,omitempty"`
}

// Endpoints lists the addresses behind a Service, grouped into subsets that
// share ports. It has the Service's name; the endpoints controller writes it.
type Endpoints struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`
	Subsets    []EndpointSubset `json:"subsets,omitempty"`
}

// EndpointSubset is a set of addresses that all expose the same ports.
type EndpointSubset struct {
	Addresses         []EndpointAddress `json:"addresses,omitempty"`
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty"`
	Ports             []EndpointPort    `json:"ports,omitempty"`
}

// EndpointAddress is one backend, usually a pod.
type EndpointAddress struct {
	IP        string           `json:"ip"`
	Hostname  string           `json:"hostname,omitempty"`
	NodeName  *string          `json:"nodeName,omitempty"`
	TargetRef *ObjectReference `json:"targetRef,omitempty"`
}

// EndpointPort is one port the addresses of a subset expose.
type EndpointPort struct {
	Name        string   `json:"name,omitempty"`
	Port        int32    `json:"port"`
	Protocol    Protocol `json:"protocol,omitempty"`
	AppProtocol *string  `json:"appProtocol,omitempty"`
}
