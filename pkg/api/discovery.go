package api

// This file holds the discovery.k8s.io/v1 EndpointSlice: the scalable
// successor of Endpoints. Instead of one object per Service listing every
// backend, the endpointslice controller writes several small slices per
// Service, each holding at most 100 endpoints by default, so that a change
// to one pod rewrites one slice rather than the whole list. kube-proxy, DNS
// and `kubectl describe service` read the slices labelled
// kubernetes.io/service-name=<service>.

// The labels the endpointslice controller puts on every slice it manages.
const (
	// LabelServiceName names the Service a slice belongs to; consumers
	// find a Service's slices by selecting on it.
	LabelServiceName = "kubernetes.io/service-name"
	// LabelManagedBy names who writes a slice, so that controllers (and
	// people writing slices by hand) leave each other's slices alone.
	LabelManagedBy = "endpointslice.kubernetes.io/managed-by"
)

// EndpointSlice is one piece of the set of network endpoints behind a
// Service. A Service usually has several; joined, the slices labelled
// kubernetes.io/service-name with its name list all its backends.
type EndpointSlice struct {
	// The kind (EndpointSlice) and apiVersion (discovery.k8s.io/v1).
	TypeMeta `json:",inline"`
	// Standard object metadata: name, namespace, labels, owner references.
	ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// The kind of address every endpoint in this slice carries: IPv4,
	// IPv6 or FQDN. All addresses in one slice share it, and it cannot be
	// changed once the slice exists.
	AddressType AddressType `json:"addressType" protobuf:"bytes,4,opt,name=addressType,casttype=AddressType"`
	// The backends in this slice, each one pod (or other target) with its
	// addresses and readiness. A slice holds at most 1000 endpoints; the
	// endpointslice controller starts a new slice after 100.
	Endpoints []Endpoint `json:"endpoints" protobuf:"bytes,2,rep,name=endpoints"`
	// The network ports every endpoint in this slice exposes. Port names
	// are unique within the slice. An empty list means no ports are
	// defined; a port without a number means "all ports". At most 100.
	Ports []EndpointSlicePort `json:"ports" protobuf:"bytes,3,rep,name=ports"`
}

// AddressType says how the addresses of an EndpointSlice are to be read.
type AddressType string

// The address types. The endpointslice controller writes IPv4 or IPv6
// slices, following the Service's IP families; FQDN is for slices written
// by hand.
const (
	AddressTypeIPv4 AddressType = "IPv4"
	AddressTypeIPv6 AddressType = "IPv6"
	AddressTypeFQDN AddressType = "FQDN"
)

// Endpoint is one backend of a Service: usually a pod, with its IP, its
// readiness and where it runs.
type Endpoint struct {
	// The addresses of this backend, read according to the slice's
	// addressType. At least one and at most 100; consumers use the first.
	Addresses []string `json:"addresses" protobuf:"bytes,1,rep,name=addresses"`
	// Whether this backend should receive traffic, whether it could, and
	// whether it is shutting down.
	Conditions EndpointConditions `json:"conditions,omitempty" protobuf:"bytes,2,opt,name=conditions"`
	// A DNS label (RFC 1123) naming this backend, set when the pod asks
	// for a hostname under the Service (spec.hostname and spec.subdomain,
	// as a StatefulSet's pods do). Backends sharing a hostname are
	// interchangeable.
	Hostname *string `json:"hostname,omitempty" protobuf:"bytes,3,opt,name=hostname"`
	// The object this backend stands for, usually the pod.
	TargetRef *ObjectReference `json:"targetRef,omitempty" protobuf:"bytes,4,opt,name=targetRef"`
	// The name of the node the backend runs on, so that traffic can prefer
	// backends on the same node.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,6,opt,name=nodeName"`
	// The zone the backend runs in: its node's topology.kubernetes.io/zone
	// label.
	Zone *string `json:"zone,omitempty" protobuf:"bytes,7,opt,name=zone"`
	// Advice on which consumers should route to this backend, for
	// topology-aware routing.
	Hints *EndpointHints `json:"hints,omitempty" protobuf:"bytes,8,opt,name=hints"`
}

// EndpointConditions is the state of one backend. A condition left unset
// is unknown: ready is then read as true, serving as ready, and
// terminating as false.
type EndpointConditions struct {
	// True when the backend should receive new traffic: it passes its
	// readiness checks and is not shutting down (or the Service publishes
	// not-ready addresses). Never true for a terminating backend otherwise.
	Ready *bool `json:"ready,omitempty" protobuf:"varint,1,opt,name=ready"`
	// True when the backend passes its readiness checks, whether or not it
	// is shutting down: a terminating backend may still serve connections
	// while it drains.
	Serving *bool `json:"serving,omitempty" protobuf:"varint,2,opt,name=serving"`
	// True when the backend is shutting down (its pod has a
	// deletionTimestamp).
	Terminating *bool `json:"terminating,omitempty" protobuf:"varint,3,opt,name=terminating"`
}

// EndpointHints tells consumers which of them should use an endpoint.
type EndpointHints struct {
	// The zones whose clients should be sent to this endpoint.
	ForZones []ForZone `json:"forZones,omitempty" protobuf:"bytes,1,rep,name=forZones"`
}

// ForZone names one zone in a topology hint.
type ForZone struct {
	// The zone's name, as in the topology.kubernetes.io/zone label.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// EndpointSlicePort is one port the endpoints of a slice expose, resolved
// for them: a Service port's targetPort named "http" becomes the number the
// pods' containers give that name. Upstream calls it discovery/v1
// EndpointPort; the core Endpoints' port type already has that name here.
type EndpointSlicePort struct {
	// The port's name, unique within the slice: the Service port's name,
	// or empty for a Service with a single unnamed port. A DNS label
	// (RFC 1123) when set.
	Name *string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// The IP protocol: TCP (the default), UDP or SCTP.
	Protocol *Protocol `json:"protocol,omitempty" protobuf:"bytes,2,opt,name=protocol,casttype=Protocol"`
	// The port number the endpoints listen on. Unset means every port;
	// what that means is up to the consumer.
	Port *int32 `json:"port,omitempty" protobuf:"varint,3,opt,name=port"`
	// The application protocol spoken on this port, copied from the
	// Service port: an IANA service name such as "http", or a prefixed
	// name such as "example.com/my-protocol".
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,4,opt,name=appProtocol"`
}
