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
// it, session affinity, traffic policies and Events.
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
			w.write(level0, "Endpoints:\t%s\n", formatEndpoints(in.Related.Endpoints, sp.Name))
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

// formatEndpoints lists the ready addresses behind one service port, as
// "ip:port" (just "ip" for a headless service without ports), the first
// three and then "+ N more...", or <none>. Upstream kubectl reads them from
// EndpointSlices; kplane serves the Endpoints they are built from, which
// hold the same addresses.
func formatEndpoints(ep *api.Endpoints, portName string) string {
	if ep == nil || len(ep.Subsets) == 0 {
		return "<none>"
	}
	const max = 3
	var list []string
	count := 0
	add := func(s string) {
		if len(list) < max {
			list = append(list, s)
		}
		count++
	}
	for _, ss := range ep.Subsets {
		if len(ss.Ports) == 0 {
			for _, addr := range ss.Addresses {
				add(addr.IP)
			}
			continue
		}
		for _, port := range ss.Ports {
			if port.Name != portName {
				continue
			}
			for _, addr := range ss.Addresses {
				add(net.JoinHostPort(addr.IP, strconv.Itoa(int(port.Port))))
			}
		}
	}
	ret := strings.Join(list, ",")
	if count > max {
		return fmt.Sprintf("%s + %d more...", ret, count-max)
	}
	return ret
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
