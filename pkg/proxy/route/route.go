// Package route is the question a node's kube-proxy answers for the
// kubelet's simulated shell: "a connection from this pod to this Service
// address and port — where would your rules send it?". Nothing in kplane
// ever opens a connection to a Service or pod IP; instead `curl web` in a
// simulated pod asks the kube-proxy of the pod's node, which walks the rules
// it computed (KUBE-SERVICES → KUBE-SVC-… → KUBE-SEP-…, with the same random
// choice iptables' statistic match makes) and names the endpoint.
//
// The kube-proxy serves it on its loopback metrics address, beside
// /metrics, /healthz and /proxyMode (none of which upstream authenticates):
//
//	GET http://<kube-proxy address>/proxy/route?ip=10.96.0.20&port=80&protocol=TCP&sourceIP=10.244.1.5
//
// answering 200 with a Route, or an error Route (Reason set) with 404 when
// no Service has that address and port, or 503 when the Service has no
// ready endpoint (iptables' REJECT: the client sees "connection refused").
package route

// Path is where a kube-proxy serves the route question.
const Path = "/proxy/route"

// Reasons an answer carries when no endpoint was chosen.
const (
	// ReasonNoService: no Service (ClusterIP, NodePort, LoadBalancer or
	// external IP) has this address and port on this node.
	ReasonNoService = "NoService"
	// ReasonNoEndpoints: the Service exists but has no ready endpoint, so
	// the rules reject the connection.
	ReasonNoEndpoints = "NoEndpoints"
)

// Route is a kube-proxy's answer.
type Route struct {
	// Service is the Service and port the address matched:
	// "default/web:http" (namespace/name:portName, as upstream's chain
	// comments write it).
	Service string `json:"service,omitempty"`
	// Chains are the chains the packet went through, in order, e.g.
	// KUBE-SERVICES, KUBE-SVC-XXXXXXXXXXXXXXXX, KUBE-SEP-YYYYYYYYYYYYYYYY.
	Chains []string `json:"chains,omitempty"`
	// Endpoint is where the connection would be DNATed to.
	Endpoint *Endpoint `json:"endpoint,omitempty"`
	// Reason and Message say why there is no Endpoint.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Endpoint is one chosen backend.
type Endpoint struct {
	IP   string `json:"ip"`
	Port int32  `json:"port"`
	// Pod names the pod behind the endpoint (the EndpointSlice's
	// targetRef), when it has one.
	PodNamespace string `json:"podNamespace,omitempty"`
	PodName      string `json:"podName,omitempty"`
	// NodeName is the node the endpoint runs on.
	NodeName string `json:"nodeName,omitempty"`
}
