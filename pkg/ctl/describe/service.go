package describe

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"kplane/pkg/api"
)

// describeService prints a Service: selector, type, IP families and
// cluster IPs, each port with its target port and the endpoints behind
// it (from its EndpointSlices), session affinity, traffic policies and
// Events.
func describeService(in Input, s Settings) (string, error) {
	svc, err := decode[api.Service](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", svc.Name)
		w.write(level0, "Namespace:\t%s\n", svc.Namespace)
		printLabelsMultiline(w, "Labels", svc.Labels)
		printAnnotationsMultiline(w, "Annotations", svc.Annotations)
		w.write(level0, "Selector:\t%s\n", formatLabels(svc.Spec.Selector))
		w.write(level0, "Type:\t%s\n", svc.Spec.Type)
		if svc.Spec.IPFamilyPolicy != nil {
			w.write(level0, "IP Family Policy:\t%s\n", *svc.Spec.IPFamilyPolicy)
		}
		if len(svc.Spec.IPFamilies) > 0 {
			families := make([]string, len(svc.Spec.IPFamilies))
			for i, f := range svc.Spec.IPFamilies {
				families[i] = string(f)
			}
			w.write(level0, "IP Families:\t%s\n", strings.Join(families, ","))
		} else {
			w.write(level0, "IP Families:\t%s\n", "<none>")
		}
		w.write(level0, "IP:\t%s\n", svc.Spec.ClusterIP)
		if len(svc.Spec.ClusterIPs) > 0 {
			w.write(level0, "IPs:\t%s\n", strings.Join(svc.Spec.ClusterIPs, ","))
		} else {
			w.write(level0, "IPs:\t%s\n", "<none>")
		}
		if len(svc.Spec.ExternalIPs) > 0 {
			w.write(level0, "External IPs:\t%v\n", strings.Join(svc.Spec.ExternalIPs, ","))
		}
		if svc.Spec.LoadBalancerIP != "" {
			w.write(level0, "Desired LoadBalancer IP:\t%s\n", svc.Spec.LoadBalancerIP)
		}
		if svc.Spec.ExternalName != "" {
			w.write(level0, "External Name:\t%s\n", svc.Spec.ExternalName)
		}
		if len(svc.Status.LoadBalancer.Ingress) > 0 {
			w.write(level0, "LoadBalancer Ingress:\t%s\n", loadBalancerIngress(svc.Status.LoadBalancer.Ingress))
		}
		for _, sp := range svc.Spec.Ports {
			name := sp.Name
			if name == "" {
				name = "<unset>"
			}
			w.write(level0, "Port:\t%s\t%d/%s\n", name, sp.Port, sp.Protocol)
			if sp.TargetPort.Type == api.IntOrStringInt {
				w.write(level0, "TargetPort:\t%d/%s\n", sp.TargetPort.IntVal, sp.Protocol)
			} else {
				w.write(level0, "TargetPort:\t%s/%s\n", sp.TargetPort.StrVal, sp.Protocol)
			}
			if sp.AppProtocol != nil {
				w.write(level0, "AppProtocol:\t%s\n", *sp.AppProtocol)
			}
			if sp.NodePort != 0 {
				w.write(level0, "NodePort:\t%s\t%d/%s\n", name, sp.NodePort, sp.Protocol)
			}
			w.write(level0, "Endpoints:\t%s\n", formatEndpointSlices(in.Related.EndpointSlices, sp.Name))
		}
		w.write(level0, "Session Affinity:\t%s\n", svc.Spec.SessionAffinity)
		if svc.Spec.ExternalTrafficPolicy != "" {
			w.write(level0, "External Traffic Policy:\t%s\n", svc.Spec.ExternalTrafficPolicy)
		}
		if svc.Spec.InternalTrafficPolicy != nil {
			w.write(level0, "Internal Traffic Policy:\t%s\n", *svc.Spec.InternalTrafficPolicy)
		}
		if svc.Spec.HealthCheckNodePort != 0 {
			w.write(level0, "HealthCheck NodePort:\t%d\n", svc.Spec.HealthCheckNodePort)
		}
		if len(svc.Spec.LoadBalancerSourceRanges) > 0 {
			w.write(level0, "LoadBalancer Source Ranges:\t%v\n", strings.Join(svc.Spec.LoadBalancerSourceRanges, ","))
		}
		if svc.Spec.TrafficDistribution != nil {
			w.write(level0, "Traffic Distribution:\t%s\n", *svc.Spec.TrafficDistribution)
		}
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

// loadBalancerIngress lists a load balancer's IPs (with their mode) or
// hostnames.
func loadBalancerIngress(ingress []api.LoadBalancerIngress) string {
	parts := make([]string, len(ingress))
	for i, in := range ingress {
		if in.IP != "" {
			parts[i] = in.IP
			if in.IPMode != nil {
				parts[i] += fmt.Sprintf(" (%s)", *in.IPMode)
			}
		} else {
			parts[i] = in.Hostname
		}
	}
	return strings.Join(parts, ", ")
}

// maxListedEndpoints is how many addresses a Service's Endpoints line
// lists before it says "+ N more...".
const maxListedEndpoints = 3

// formatEndpointSlices lists the ready endpoints behind one service port,
// read from the Service's EndpointSlices as kubectl 1.32 reads them:
// "ip:port" for each ready endpoint of each slice port named portName
// (just "ip" in a slice without ports, as a headless Service's), the first
// three and then "+ N more...". No slices at all print "<none>"; slices
// with no ready endpoint print nothing, since kubectl then joins an empty
// list. An endpoint whose ready condition is unset counts as ready.
//
// kubectl decides that there are more before it checks readiness, so a
// fourth endpoint that is not ready still adds " + 0 more..."; kplane
// prints the same.
func formatEndpointSlices(slices []api.EndpointSlice, portName string) string {
	if len(slices) == 0 {
		return "<none>"
	}
	var list []string
	more, count := false, 0
	add := func(endpoint *api.Endpoint, address string) {
		if len(list) == maxListedEndpoints {
			more = true
		}
		if ready := endpoint.Conditions.Ready; ready != nil && !*ready {
			return
		}
		if !more {
			list = append(list, address)
		}
		count++
	}
	for i := range slices {
		slice := &slices[i]
		if len(slice.Ports) == 0 {
			for j := range slice.Endpoints {
				add(&slice.Endpoints[j], firstAddress(&slice.Endpoints[j]))
			}
			continue
		}
		for _, port := range slice.Ports {
			if port.Name == nil || *port.Name != portName {
				continue
			}
			number := 0
			if port.Port != nil {
				number = int(*port.Port)
			}
			for j := range slice.Endpoints {
				add(&slice.Endpoints[j], net.JoinHostPort(firstAddress(&slice.Endpoints[j]), strconv.Itoa(number)))
			}
		}
	}
	ret := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", ret, count-maxListedEndpoints)
	}
	return ret
}

// firstAddress is the address consumers use for an endpoint: its first.
func firstAddress(endpoint *api.Endpoint) string {
	if len(endpoint.Addresses) == 0 {
		return ""
	}
	return endpoint.Addresses[0]
}

// describeEndpoints prints an Endpoints object: per subset, the ready and
// not-ready addresses and the ports.
func describeEndpoints(in Input, s Settings) (string, error) {
	ep, err := decode[api.Endpoints](in.Object)
	if err != nil {
		return "", err
	}
	return tabbedString(func(w prefixWriter) {
		w.write(level0, "Name:\t%s\n", ep.Name)
		w.write(level0, "Namespace:\t%s\n", ep.Namespace)
		printLabelsMultiline(w, "Labels", ep.Labels)
		printAnnotationsMultiline(w, "Annotations", ep.Annotations)
		w.write(level0, "Subsets:\n")
		for _, subset := range ep.Subsets {
			w.write(level1, "Addresses:\t%s\n", stringOrNone(joinIPs(subset.Addresses)))
			w.write(level1, "NotReadyAddresses:\t%s\n", stringOrNone(joinIPs(subset.NotReadyAddresses)))
			if len(subset.Ports) > 0 {
				w.write(level1, "Ports:\n")
				w.write(level2, "Name\tPort\tProtocol\n")
				w.write(level2, "----\t----\t--------\n")
				for _, port := range subset.Ports {
					name := port.Name
					if name == "" {
						name = "<unset>"
					}
					w.write(level2, "%s\t%d\t%s\n", name, port.Port, port.Protocol)
				}
			}
			w.write(level0, "\n")
		}
		if s.ShowEvents {
			describeEvents(in.Events, w, s)
		}
	}), nil
}

func joinIPs(addrs []api.EndpointAddress) string {
	ips := make([]string, len(addrs))
	for i, a := range addrs {
		ips[i] = a.IP
	}
	return strings.Join(ips, ",")
}
