package printers

import (
	"strconv"
	"time"

	"kplane/pkg/api"
)

// This file prints EndpointSlices, the discovery.k8s.io successor of
// Endpoints.

var endpointSliceColumns = []api.TableColumnDefinition{
	nameColumn,
	text("AddressType", "The kind of address the slice holds: IPv4, IPv6 or FQDN."),
	text("Ports", "The first few port numbers the slice's endpoints expose."),
	text("Endpoints", "The first few addresses in the slice, ready or not."),
	ageColumn,
}

// endpointSliceCells is upstream's printEndpointSlice.
func endpointSliceCells(slice *api.EndpointSlice, now time.Time) []any {
	return []any{
		slice.Name,
		string(slice.AddressType),
		slicePorts(slice.Ports),
		sliceAddresses(slice.Endpoints),
		age(slice.CreationTimestamp, now),
	}
}

// slicePorts lists the first three port numbers ("80,443,8080 + 2
// more..."): a port without a number shows its name, or "*" without one;
// no ports at all print "<unset>" (upstream's formatDiscoveryPorts).
func slicePorts(ports []api.EndpointSlicePort) string {
	shown := make([]string, 0, maxEndpoints)
	for _, port := range ports {
		switch {
		case port.Port != nil:
			shown = append(shown, strconv.Itoa(int(*port.Port)))
		case port.Name != nil:
			shown = append(shown, *port.Name)
		default:
			shown = append(shown, "*")
		}
	}
	return orUnset(joinWithMore(shown, len(ports), maxEndpoints, ","))
}

// sliceAddresses lists the first three addresses of the slice's endpoints,
// whatever their conditions ("10.244.1.2,10.244.2.3,10.244.1.7 + 1
// more..."), or "<unset>" for a slice without endpoints (upstream's
// formatDiscoveryEndpoints). Unlike the Endpoints printer it cannot tell
// ready from not-ready: the conditions are not consulted.
func sliceAddresses(endpoints []api.Endpoint) string {
	var shown []string
	for _, endpoint := range endpoints {
		shown = append(shown, endpoint.Addresses...)
	}
	return orUnset(joinWithMore(shown, len(shown), maxEndpoints, ","))
}

// orUnset returns s, or "<unset>" when s is empty.
func orUnset(s string) string {
	if s == "" {
		return unset
	}
	return s
}
