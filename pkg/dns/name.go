package dns

import (
	"errors"
	"strings"
)

// The two kinds of name under the zone, the second label from the zone.
const (
	kindService = "svc"
	kindPod     = "pod"
)

// errInvalidName says a name under the zone cannot name anything: its
// kind is neither svc nor pod, or it has too many labels. It answers
// NXDOMAIN, as CoreDNS's errInvalidRequest does.
var errInvalidName = errors.New("not a name of the Kubernetes DNS schema")

// query is a name under the zone, split into the parts the Kubernetes DNS
// schema gives its labels (CoreDNS's recordRequest):
//
//	_port._protocol.service.namespace.svc.zone   SRV for a named port
//	endpoint.service.namespace.svc.zone          one endpoint of a Service
//	service.namespace.svc.zone                   the Service
//	pod-ip.namespace.pod.zone                    a pod, by its dashed IP
//
// A part the name does not have is empty; kind is empty for the zone's
// apex and for svc.zone and pod.zone themselves.
type query struct {
	// port and protocol come from the _port._protocol labels of an SRV
	// name, without their underscores ("http", "tcp").
	port, protocol string
	// endpoint is the leftmost label of a four-label name: an endpoint's
	// hostname (nginx-ss-0) or its dashed IP (10-244-1-5).
	endpoint string
	// service is the Service's name, or for kind pod the dashed pod IP.
	service   string
	namespace string
	// kind is kindService or kindPod.
	kind string
}

// parseName splits name, lower case and fully qualified, under zone
// (also fully qualified, "cluster.local."). It mirrors CoreDNS's
// parseRequest: labels are read from the zone leftwards — kind,
// namespace, service — and what is left is one endpoint label or two
// _port._protocol labels; anything longer is invalid.
func parseName(name, zone string) (query, error) {
	var q query
	base := strings.TrimSuffix(strings.TrimSuffix(name, zone), ".")
	if base == "" || base == kindService || base == kindPod {
		return q, nil // the apex, svc.zone or pod.zone: they exist, with no records
	}
	labels := strings.Split(base, ".")
	last := len(labels) - 1
	q.kind = labels[last]
	if q.kind != kindService && q.kind != kindPod {
		return q, errInvalidName
	}
	if last--; last < 0 {
		return q, nil
	}
	q.namespace = labels[last]
	if last--; last < 0 {
		return q, nil
	}
	q.service = labels[last]
	if last--; last < 0 {
		return q, nil
	}
	switch last {
	case 0:
		q.endpoint = labels[0]
	case 1:
		q.port = strings.TrimPrefix(labels[0], "_")
		q.protocol = strings.TrimPrefix(labels[1], "_")
	default:
		return q, errInvalidName
	}
	return q, nil
}

// matchPort reports whether a port named name with protocol matches the
// query's _port._protocol labels; a query without them matches every
// port. Names and protocols compare without regard to case ("TCP" is
// _tcp), as CoreDNS's matchPortAndProtocol does.
func (q query) matchPort(name, protocol string) bool {
	return (q.port == "" || strings.EqualFold(q.port, name)) &&
		(q.protocol == "" || strings.EqualFold(q.protocol, protocol))
}
