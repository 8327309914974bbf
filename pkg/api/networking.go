package api

// This file holds the networking.k8s.io/v1 kinds: Ingress (HTTP routing from
// outside the cluster to Services), IngressClass (which controller
// implements an Ingress) and NetworkPolicy (which pods may talk to which).
// kplane stores, defaults and validates them; no ingress controller or
// network plugin acts on them yet, as on a cluster without one installed.

// Ingress routes external HTTP(S) traffic to Services by host and path. An
// ingress controller (nginx, traefik, …) reads it and configures a proxy;
// it writes the address it listens on into status.
type Ingress struct {
	// The kind (Ingress) and apiVersion (networking.k8s.io/v1).
	TypeMeta `json:",inline"`
	// Standard object metadata.
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The routing rules, TLS settings and default backend.
	Spec IngressSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// The addresses the ingress controller serves this Ingress on.
	Status IngressStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// IngressSpec is the desired routing of an Ingress.
type IngressSpec struct {
	// The IngressClass that implements this Ingress. Unset means the
	// cluster's default class (the one annotated
	// ingressclass.kubernetes.io/is-default-class=true), if any.
	IngressClassName *string `json:"ingressClassName,omitempty" protobuf:"bytes,4,opt,name=ingressClassName"`
	// Where requests that match no rule go. Without it, the controller
	// decides (usually a 404).
	DefaultBackend *IngressBackend `json:"defaultBackend,omitempty" protobuf:"bytes,1,opt,name=defaultBackend"`
	// TLS termination: which hosts are served with which certificate Secret.
	TLS []IngressTLS `json:"tls,omitempty" protobuf:"bytes,2,rep,name=tls"`
	// The host and path rules, tried in order of specificity.
	Rules []IngressRule `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
}

// IngressTLS names the hosts one certificate covers.
type IngressTLS struct {
	// The hosts the certificate is for; they should match rules' hosts.
	Hosts []string `json:"hosts,omitempty" protobuf:"bytes,1,rep,name=hosts"`
	// The Secret (in the Ingress's namespace) holding tls.crt and tls.key.
	SecretName string `json:"secretName,omitempty" protobuf:"bytes,2,opt,name=secretName"`
}

// IngressStatus is the observed state of an Ingress.
type IngressStatus struct {
	// The load balancer's addresses.
	LoadBalancer IngressLoadBalancerStatus `json:"loadBalancer,omitempty" protobuf:"bytes,1,opt,name=loadBalancer"`
}

// IngressLoadBalancerStatus lists the addresses of the load balancer that
// serves an Ingress.
type IngressLoadBalancerStatus struct {
	// One entry per address.
	Ingress []IngressLoadBalancerIngress `json:"ingress,omitempty" protobuf:"bytes,1,rep,name=ingress"`
}

// IngressLoadBalancerIngress is one address of a load balancer: an IP or a
// host name.
type IngressLoadBalancerIngress struct {
	// An IP address.
	IP string `json:"ip,omitempty" protobuf:"bytes,1,opt,name=ip"`
	// A DNS name.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,2,opt,name=hostname"`
	// The ports this address serves, with their state.
	Ports []IngressPortStatus `json:"ports,omitempty" protobuf:"bytes,4,rep,name=ports"`
}

// IngressPortStatus is the state of one port of a load balancer address.
type IngressPortStatus struct {
	// The port number.
	Port int32 `json:"port" protobuf:"varint,1,opt,name=port"`
	// TCP, UDP or SCTP.
	Protocol Protocol `json:"protocol" protobuf:"bytes,2,opt,name=protocol,casttype=Protocol"`
	// Why the port is not working, in CamelCase; empty when it is.
	Error *string `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// IngressRule routes the requests for one host (or every host).
type IngressRule struct {
	// The host name to match, optionally with one leading wildcard label
	// ("*.example.com"). Empty matches every host. No IP addresses, no port.
	Host string `json:"host,omitempty" protobuf:"bytes,1,opt,name=host"`
	// The protocol-specific rule: today only HTTP paths.
	IngressRuleValue `json:",inline,omitempty" protobuf:"bytes,2,opt,name=ingressRuleValue"`
}

// IngressRuleValue holds the one kind of rule an Ingress supports.
type IngressRuleValue struct {
	// The HTTP paths of the rule.
	HTTP *HTTPIngressRuleValue `json:"http,omitempty" protobuf:"bytes,1,opt,name=http"`
}

// HTTPIngressRuleValue lists the paths of an HTTP rule.
type HTTPIngressRuleValue struct {
	// The paths, each with the backend its requests go to.
	Paths []HTTPIngressPath `json:"paths" protobuf:"bytes,1,rep,name=paths"`
}

// PathType says how an Ingress path is matched against a request's path.
type PathType string

// The path types.
const (
	// PathTypeExact matches the URL path exactly, case-sensitively.
	PathTypeExact PathType = "Exact"
	// PathTypePrefix matches by '/'-separated path elements: /foo matches
	// /foo and /foo/bar, not /foobar.
	PathTypePrefix PathType = "Prefix"
	// PathTypeImplementationSpecific leaves matching to the IngressClass.
	PathTypeImplementationSpecific PathType = "ImplementationSpecific"
)

// HTTPIngressPath sends the requests whose path matches to a backend.
type HTTPIngressPath struct {
	// The path to match; must start with '/' (for Exact and Prefix).
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	// How path is matched: Exact, Prefix or ImplementationSpecific. Required.
	PathType *PathType `json:"pathType" protobuf:"bytes,3,opt,name=pathType"`
	// Where the matching requests go.
	Backend IngressBackend `json:"backend" protobuf:"bytes,2,opt,name=backend"`
}

// IngressBackend is where requests go: a Service port, or another resource
// the ingress controller understands. Exactly one is set.
type IngressBackend struct {
	// A Service in the Ingress's namespace, and one of its ports.
	Service *IngressServiceBackend `json:"service,omitempty" protobuf:"bytes,4,opt,name=service"`
	// Another object, e.g. a storage bucket of a cloud load balancer.
	Resource *TypedLocalObjectReference `json:"resource,omitempty" protobuf:"bytes,3,opt,name=resource"`
}

// IngressServiceBackend names a Service and one of its ports.
type IngressServiceBackend struct {
	// The Service's name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// The Service's port, by name or number.
	Port ServiceBackendPort `json:"port,omitempty" protobuf:"bytes,2,opt,name=port"`
}

// ServiceBackendPort names a Service port by name or by number (not both).
type ServiceBackendPort struct {
	// The port's name.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// The port's number.
	Number int32 `json:"number,omitempty" protobuf:"bytes,2,opt,name=number"`
}

// IngressClass names an ingress controller, so that several can coexist:
// an Ingress picks one by spec.ingressClassName. The class annotated
// ingressclass.kubernetes.io/is-default-class=true is used by Ingresses
// that name none.
type IngressClass struct {
	// The kind (IngressClass) and apiVersion (networking.k8s.io/v1).
	TypeMeta `json:",inline"`
	// Standard object metadata.
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The controller and its parameters.
	Spec IngressClassSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// AnnotationIsDefaultIngressClass marks the cluster's default IngressClass.
const AnnotationIsDefaultIngressClass = "ingressclass.kubernetes.io/is-default-class"

// IngressClassSpec names the controller that implements a class.
type IngressClassSpec struct {
	// The controller's name, a domain-prefixed path such as
	// "k8s.io/ingress-nginx"; at most 250 characters, and immutable.
	Controller string `json:"controller,omitempty" protobuf:"bytes,1,opt,name=controller"`
	// An object holding the controller's settings for this class.
	Parameters *IngressClassParametersReference `json:"parameters,omitempty" protobuf:"bytes,2,opt,name=parameters"`
}

// The scopes of an IngressClass's parameters object.
const (
	IngressClassParametersReferenceScopeNamespace = "Namespace"
	IngressClassParametersReferenceScopeCluster   = "Cluster"
)

// IngressClassParametersReference points at the object that configures an
// IngressClass.
type IngressClassParametersReference struct {
	// The API group of the object; empty for the core group.
	APIGroup *string `json:"apiGroup,omitempty" protobuf:"bytes,1,opt,name=aPIGroup"`
	// The kind of the object.
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// The name of the object.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// Cluster (the default) or Namespace.
	Scope *string `json:"scope" protobuf:"bytes,4,opt,name=scope"`
	// The object's namespace; set exactly when scope is Namespace.
	Namespace *string `json:"namespace,omitempty" protobuf:"bytes,5,opt,name=namespace"`
}

// NetworkPolicy says which traffic may reach (ingress) or leave (egress)
// the pods it selects. A pod selected by any policy for a direction
// accepts only the traffic some policy allows; a pod no policy selects
// accepts everything. A network plugin enforces it; kplane stores it.
type NetworkPolicy struct {
	// The kind (NetworkPolicy) and apiVersion (networking.k8s.io/v1).
	TypeMeta `json:",inline"`
	// Standard object metadata.
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The pods the policy applies to and the traffic it allows.
	Spec NetworkPolicySpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// PolicyType is a direction a NetworkPolicy restricts.
type PolicyType string

// The policy types.
const (
	PolicyTypeIngress PolicyType = "Ingress"
	PolicyTypeEgress  PolicyType = "Egress"
)

// NetworkPolicySpec is the pods a policy selects and what they may send
// and receive.
type NetworkPolicySpec struct {
	// The pods (in the policy's namespace) the policy applies to; empty
	// selects every pod of the namespace.
	PodSelector LabelSelector `json:"podSelector" protobuf:"bytes,1,opt,name=podSelector"`
	// The traffic the selected pods may receive, if Ingress is a policy type.
	Ingress []NetworkPolicyIngressRule `json:"ingress,omitempty" protobuf:"bytes,2,rep,name=ingress"`
	// The traffic the selected pods may send, if Egress is a policy type.
	Egress []NetworkPolicyEgressRule `json:"egress,omitempty" protobuf:"bytes,3,rep,name=egress"`
	// The directions the policy restricts. Defaulted to Ingress, plus
	// Egress when egress rules are given.
	PolicyTypes []PolicyType `json:"policyTypes,omitempty" protobuf:"bytes,4,rep,name=policyTypes,casttype=PolicyType"`
}

// NetworkPolicyIngressRule allows traffic from some peers to some ports.
type NetworkPolicyIngressRule struct {
	// The ports; empty means all.
	Ports []NetworkPolicyPort `json:"ports,omitempty" protobuf:"bytes,1,rep,name=ports"`
	// The sources; empty means any.
	From []NetworkPolicyPeer `json:"from,omitempty" protobuf:"bytes,2,rep,name=from"`
}

// NetworkPolicyEgressRule allows traffic to some peers on some ports.
type NetworkPolicyEgressRule struct {
	// The ports; empty means all.
	Ports []NetworkPolicyPort `json:"ports,omitempty" protobuf:"bytes,1,rep,name=ports"`
	// The destinations; empty means any.
	To []NetworkPolicyPeer `json:"to,omitempty" protobuf:"bytes,2,rep,name=to"`
}

// NetworkPolicyPort is a port, or a range of ports, and its protocol.
type NetworkPolicyPort struct {
	// TCP (the default), UDP or SCTP.
	Protocol *Protocol `json:"protocol,omitempty" protobuf:"bytes,1,opt,name=protocol,casttype=Protocol"`
	// A port number or a named container port; unset means every port.
	Port *IntOrString `json:"port,omitempty" protobuf:"bytes,2,opt,name=port"`
	// With a numeric port, the last port of a range starting at port.
	EndPort *int32 `json:"endPort,omitempty" protobuf:"bytes,3,opt,name=endPort"`
}

// IPBlock is a CIDR, minus some sub-ranges.
type IPBlock struct {
	// The CIDR, e.g. "192.168.1.0/24".
	CIDR string `json:"cidr" protobuf:"bytes,1,name=cidr"`
	// Sub-ranges of cidr that are not part of the block.
	Except []string `json:"except,omitempty" protobuf:"bytes,2,rep,name=except"`
}

// NetworkPolicyPeer is a set of traffic sources or destinations: pods (by
// label, optionally in other namespaces) or an IP block. ipBlock excludes
// the two selectors.
type NetworkPolicyPeer struct {
	// Pods with these labels, in the policy's namespace or in those
	// namespaceSelector selects.
	PodSelector *LabelSelector `json:"podSelector,omitempty" protobuf:"bytes,1,opt,name=podSelector"`
	// Namespaces with these labels.
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,2,opt,name=namespaceSelector"`
	// A range of IP addresses.
	IPBlock *IPBlock `json:"ipBlock,omitempty" protobuf:"bytes,3,rep,name=ipBlock"`
}
