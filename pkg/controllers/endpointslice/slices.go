package endpointslice

// This file holds what the controller knows about one EndpointSlice: how
// a new one looks, which labels it carries, who owns it, and when two
// endpoints or two port lists are "the same".

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
)

// ManagedByValue is the endpointslice.kubernetes.io/managed-by label of
// the slices this controller writes (upstream's value). Slices with
// another value — written by hand or by another controller — are not
// touched.
const ManagedByValue = "endpointslice-controller.k8s.io"

// headlessLabel marks the slices of a Service without a cluster IP.
const headlessLabel = "service.kubernetes.io/headless"

// isReservedLabel reports the labels the controller sets itself; a Service
// label of the same key is not copied onto its slices.
func isReservedLabel(key string) bool {
	return key == api.LabelServiceName || key == api.LabelManagedBy || key == headlessLabel
}

// sliceLabels returns the labels a slice of svc should carry: the
// Service's own labels (except reserved keys), the headless label for a
// Service without a cluster IP, and the service-name and managed-by labels
// consumers select on. changed says whether current's copy of the
// Service's labels is out of date; a change to the reserved labels alone
// does not count, as upstream's setEndpointSliceLabels decides.
func sliceLabels(current map[string]string, svc *api.Service) (labels map[string]string, changed bool) {
	fromService := map[string]string{}
	for key, value := range svc.Labels {
		if !isReservedLabel(key) {
			fromService[key] = value
		}
	}
	onSlice := map[string]string{}
	for key, value := range current {
		if !isReservedLabel(key) {
			onSlice[key] = value
		}
	}
	changed = !maps.Equal(onSlice, fromService)

	labels = fromService
	if svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == api.ClusterIPNone {
		labels[headlessLabel] = ""
	}
	labels[api.LabelServiceName] = svc.Name
	labels[api.LabelManagedBy] = ManagedByValue
	return labels, changed
}

// newSlice returns an empty slice for svc with the given ports, to be
// created with generateName "<service>-" (the apiserver appends five
// random characters) and owned by the Service, so that the garbage
// collector deletes it with the Service.
func newSlice(svc *api.Service, addressType api.AddressType, ports []api.EndpointSlicePort) *api.EndpointSlice {
	labels, _ := sliceLabels(nil, svc)
	return &api.EndpointSlice{
		TypeMeta: api.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: api.ObjectMeta{
			GenerateName:    slicePrefix(svc.Name),
			Namespace:       svc.Namespace,
			Labels:          labels,
			OwnerReferences: []api.OwnerReference{controllerutil.NewControllerRef(svc, "v1", "Service")},
		},
		AddressType: addressType,
		Ports:       ports,
	}
}

// slicePrefix is the generateName of a Service's slices: "<service>-", or
// the bare name when the dash would make it too long for a DNS subdomain.
func slicePrefix(serviceName string) string {
	if len(serviceName)+1 > 253 {
		return serviceName
	}
	return serviceName + "-"
}

// ownedBy reports whether slice belongs to this very Service (not to a
// deleted Service of the same name, whose slices the garbage collector
// has yet to remove).
func ownedBy(slice *api.EndpointSlice, svc *api.Service) bool {
	for _, ref := range slice.OwnerReferences {
		if ref.UID == svc.UID && ref.Kind == "Service" && ref.APIVersion == "v1" {
			return true
		}
	}
	return false
}

// isPlaceholder reports whether slice is what the controller keeps for a
// Service with no endpoints: no endpoints, no ports, the right labels.
func isPlaceholder(slice *api.EndpointSlice, svc *api.Service) bool {
	want, _ := sliceLabels(nil, svc)
	return len(slice.Endpoints) == 0 && len(slice.Ports) == 0 && maps.Equal(slice.Labels, want)
}

// endpointKey identifies an endpoint across syncs: its addresses, hostname
// and the pod it stands for. Conditions, node and zone are not part of it,
// so that a pod turning ready updates its endpoint in place rather than
// moving it to another slice (upstream's endpointHash).
func endpointKey(e *api.Endpoint) string {
	addresses := slices.Clone(e.Addresses)
	slices.Sort(addresses)
	key := strings.Join(addresses, ",")
	if e.Hostname != nil {
		key += "|" + *e.Hostname
	} else {
		key += "|"
	}
	if e.TargetRef != nil {
		key += "|" + e.TargetRef.Namespace + "/" + e.TargetRef.Name
	}
	return key
}

// sameEndpoint reports whether two endpoints of the same key say the same
// thing: node, zone, the three conditions and the target (ignoring its
// resourceVersion). Hints are not compared; this controller does not
// write them.
func sameEndpoint(a, b *api.Endpoint) bool {
	return equalPtr(a.NodeName, b.NodeName) && equalPtr(a.Zone, b.Zone) &&
		equalPtr(a.Conditions.Ready, b.Conditions.Ready) &&
		equalPtr(a.Conditions.Serving, b.Conditions.Serving) &&
		equalPtr(a.Conditions.Terminating, b.Conditions.Terminating) &&
		sameTarget(a.TargetRef, b.TargetRef)
}

// sameTarget compares two object references, ignoring resourceVersion.
func sameTarget(a, b *api.ObjectReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	x.ResourceVersion, y.ResourceVersion = "", ""
	return x == y
}

// equalPtr compares two optional values: both unset, or both set and equal.
func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// portsKey identifies a list of ports regardless of order: the slices of
// one Service are grouped by it, since all endpoints of a slice share its
// ports.
func portsKey(ports []api.EndpointSlicePort) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = fmt.Sprintf("%s/%s/%s/%s", deref(p.Name), deref(p.Protocol), portNumber(p.Port), deref(p.AppProtocol))
	}
	slices.Sort(parts)
	return strings.Join(parts, ";")
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func portNumber(p *int32) string {
	if p == nil {
		return "*"
	}
	return strconv.Itoa(int(*p))
}
