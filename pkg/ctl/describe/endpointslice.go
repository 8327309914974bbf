package describe

import (
	"strconv"
	"strings"

	"kplane/pkg/api"
)

// describeEndpointSlice prints an EndpointSlice: its address type, its
// ports as a table, and each endpoint with its addresses, readiness,
// hostname, target, node and zone ("<unset>" for what is not set), as
// kubectl's EndpointSliceDescriber does.
func describeEndpointSlice(in Input, s Settings) (string, error) {
	slice, err := decode[api.EndpointSlice](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", slice.Name)
		w.write(level0, "Namespace:\t%s\n", slice.Namespace)
		printLabelsMultiline(w, "Labels", slice.Labels)
		printAnnotationsMultiline(w, "Annotations", slice.Annotations)
		w.write(level0, "AddressType:\t%s\n", slice.AddressType)

		// kubectl writes these two headers without a tab when they have
		// no table under them, which ends the aligned block above.
		if len(slice.Ports) == 0 {
			w.write(level0, "Ports: <unset>\n")
		} else {
			w.write(level0, "Ports:\n")
			w.write(level1, "Name\tPort\tProtocol\n")
			w.write(level1, "----\t----\t--------\n")
			for _, port := range slice.Ports {
				name := "<unset>"
				if port.Name != nil && *port.Name != "" {
					name = *port.Name
				}
				number := "<unset>"
				if port.Port != nil {
					number = strconv.Itoa(int(*port.Port))
				}
				w.write(level1, "%s\t%s\t%s\n", name, number, deref(port.Protocol))
			}
		}

		if len(slice.Endpoints) == 0 {
			w.write(level0, "Endpoints: <none>\n")
		} else {
			w.write(level0, "Endpoints:\n")
			for i := range slice.Endpoints {
				describeSliceEndpoint(w, &slice.Endpoints[i])
			}
		}
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

// describeSliceEndpoint prints one endpoint of a slice as a list item.
func describeSliceEndpoint(w prefixWriter, endpoint *api.Endpoint) {
	w.write(level1, "- Addresses:\t%s\n", stringOrNone(strings.Join(endpoint.Addresses, ", ")))
	w.write(level2, "Conditions:\n")
	ready := "<unset>"
	if endpoint.Conditions.Ready != nil {
		ready = strconv.FormatBool(*endpoint.Conditions.Ready)
	}
	w.write(level3, "Ready:\t%s\n", ready)
	w.write(level2, "Hostname:\t%s\n", orUnset(endpoint.Hostname))
	if ref := endpoint.TargetRef; ref != nil {
		w.write(level2, "TargetRef:\t%s/%s\n", ref.Kind, ref.Name)
	}
	w.write(level2, "NodeName:\t%s\n", orUnset(endpoint.NodeName))
	w.write(level2, "Zone:\t%s\n", orUnset(endpoint.Zone))
}

// orUnset is *p, or "<unset>" for nil.
func orUnset(p *string) string {
	if p == nil {
		return "<unset>"
	}
	return *p
}
