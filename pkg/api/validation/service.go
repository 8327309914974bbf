package validation

import (
	"fmt"
	"net"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// ValidateServiceName checks a Service's name: a DNS-1035 label, because it
// becomes a DNS name and environment variable names (NGINX_SERVICE_HOST) in
// every pod of the namespace.
var ValidateServiceName ValidateNameFunc = NameIsDNS1035Label

// The NodePort range, as kube-apiserver's --service-node-port-range default.
const (
	NodePortMin = 30000
	NodePortMax = 32767
)

// supportedServiceTypes are the Service types, sorted as upstream lists them.
var supportedServiceTypes = []string{
	string(api.ServiceTypeClusterIP), string(api.ServiceTypeExternalName),
	string(api.ServiceTypeLoadBalancer), string(api.ServiceTypeNodePort),
}

// validateService checks a Service being created.
func validateService(svc *api.Service) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&svc.ObjectMeta, true, ValidateServiceName, "metadata")
	return append(allErrs, validateServiceSpec(&svc.Spec)...)
}

// validateServiceUpdate checks an update. Once allocated, a cluster IP never
// changes: clients and kube-proxy rules hold on to it. An update that leaves
// clusterIP empty keeps the allocated one (the registry copies it over).
func validateServiceUpdate(svc, old *api.Service) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&svc.ObjectMeta, &old.ObjectMeta, "metadata")
	if svc.Spec.Type != api.ServiceTypeExternalName && old.Spec.Type != api.ServiceTypeExternalName &&
		old.Spec.ClusterIP != "" && svc.Spec.ClusterIP != "" {
		allErrs = append(allErrs, ValidateImmutableField(svc.Spec.ClusterIP, old.Spec.ClusterIP, "spec.clusterIP")...)
	}
	return append(allErrs, validateServiceSpec(&svc.Spec)...)
}

func validateServiceSpec(spec *api.ServiceSpec) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	headless := spec.ClusterIP == api.ClusterIPNone
	svcType := spec.Type
	if svcType == "" {
		svcType = api.ServiceTypeClusterIP // the default
	}

	// A headless Service without ports still gets DNS records for its pods;
	// an ExternalName Service is only a CNAME. Everything else needs ports.
	if len(spec.Ports) == 0 && !headless && svcType != api.ServiceTypeExternalName {
		allErrs = append(allErrs, errors.Required("spec.ports", ""))
	}

	switch svcType {
	case api.ServiceTypeClusterIP:
		for i, port := range spec.Ports {
			if port.NodePort != 0 {
				allErrs = append(allErrs, errors.Forbidden(child(index("spec.ports", i), "nodePort"), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	case api.ServiceTypeNodePort, api.ServiceTypeLoadBalancer:
		// Node ports forward to the cluster IP, so there must be one.
		if headless {
			allErrs = append(allErrs, errors.Invalid("spec.clusterIP", spec.ClusterIP,
				fmt.Sprintf("may not be set to 'None' for %s services", svcType)))
		}
	case api.ServiceTypeExternalName:
		if spec.ClusterIP != "" {
			allErrs = append(allErrs, errors.Forbidden("spec.clusterIP", "may not be set for ExternalName services"))
		}
		if spec.ExternalName == "" {
			allErrs = append(allErrs, errors.Required("spec.externalName", ""))
		} else {
			allErrs = append(allErrs, validateDNS1123Subdomain(strings.TrimSuffix(spec.ExternalName, "."), "spec.externalName")...)
		}
	default:
		allErrs = append(allErrs, errors.NotSupported("spec.type", string(spec.Type), supportedServiceTypes))
	}

	allErrs = append(allErrs, validateServicePorts(spec.Ports, "spec.ports")...)
	allErrs = append(allErrs, ValidateLabels(spec.Selector, "spec.selector")...)

	if spec.ClusterIP != "" && !headless && net.ParseIP(spec.ClusterIP) == nil {
		allErrs = append(allErrs, errors.Invalid("spec.clusterIP", spec.ClusterIP, "must be empty, 'None', or a valid IP address"))
	}
	if len(spec.ClusterIPs) > 0 && spec.ClusterIP != "" && spec.ClusterIPs[0] != spec.ClusterIP {
		allErrs = append(allErrs, errors.Invalid("spec.clusterIPs[0]", spec.ClusterIPs[0], "must be same as clusterIP"))
	}
	for i, ip := range spec.ExternalIPs {
		if net.ParseIP(ip) == nil {
			allErrs = append(allErrs, errors.Invalid(index("spec.externalIPs", i), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
		}
	}

	switch spec.SessionAffinity {
	case "", api.ServiceAffinityNone:
		if spec.SessionAffinityConfig != nil {
			allErrs = append(allErrs, errors.Forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"))
		}
	case api.ServiceAffinityClientIP:
		if c := spec.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil {
			if t := *c.ClientIP.TimeoutSeconds; t <= 0 || t > 86400 {
				allErrs = append(allErrs, errors.Invalid("spec.sessionAffinityConfig.clientIP.timeoutSeconds", t, inclusiveRangeError(1, 86400)))
			}
		}
	default:
		allErrs = append(allErrs, errors.NotSupported("spec.sessionAffinity", string(spec.SessionAffinity),
			[]string{string(api.ServiceAffinityClientIP), string(api.ServiceAffinityNone)}))
	}

	if p := spec.ExternalTrafficPolicy; p != "" {
		switch {
		case p != api.ServiceExternalTrafficPolicyCluster && p != api.ServiceExternalTrafficPolicyLocal:
			allErrs = append(allErrs, errors.NotSupported("spec.externalTrafficPolicy", string(p),
				[]string{string(api.ServiceExternalTrafficPolicyCluster), string(api.ServiceExternalTrafficPolicyLocal)}))
		case svcType == api.ServiceTypeClusterIP && len(spec.ExternalIPs) == 0, svcType == api.ServiceTypeExternalName:
			allErrs = append(allErrs, errors.Invalid("spec.externalTrafficPolicy", string(p),
				"may only be set for externally-accessible services"))
		}
	}
	return allErrs
}

// validateServicePorts checks a Service's ports. With more than one port
// each needs a name (endpoints and DNS SRV records refer to ports by name);
// a (protocol, port) pair and a node port may each be used once.
func validateServicePorts(ports []api.ServicePort, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	names := map[string]bool{}
	seenPorts := map[string]bool{}
	seenNodePorts := map[string]bool{}
	for i, port := range ports {
		portPath := index(fldPath, i)
		namePath := child(portPath, "name")
		switch {
		case port.Name == "" && len(ports) > 1:
			allErrs = append(allErrs, errors.Required(namePath, ""))
		case port.Name != "":
			allErrs = append(allErrs, validateDNS1123Label(port.Name, namePath)...)
			if names[port.Name] {
				allErrs = append(allErrs, errors.Duplicate(namePath, port.Name))
			}
			names[port.Name] = true
		}
		allErrs = append(allErrs, validatePortNum(port.Port, child(portPath, "port"))...)
		allErrs = append(allErrs, validateProtocol(port.Protocol, child(portPath, "protocol"))...)
		// A zero targetPort is defaulted to port.
		if !port.TargetPort.IsZero() {
			allErrs = append(allErrs, ValidatePortNumOrName(port.TargetPort, child(portPath, "targetPort"))...)
		}
		protocol := protocolOrDefault(port.Protocol)
		if port.NodePort != 0 {
			nodePortPath := child(portPath, "nodePort")
			if port.NodePort < NodePortMin || port.NodePort > NodePortMax {
				allErrs = append(allErrs, errors.Invalid(nodePortPath, port.NodePort,
					fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %d-%d", NodePortMin, NodePortMax)))
			}
			nodePortKey := fmt.Sprintf("%d/%s", port.NodePort, protocol)
			if seenNodePorts[nodePortKey] {
				allErrs = append(allErrs, errors.Duplicate(nodePortPath, port.NodePort))
			}
			seenNodePorts[nodePortKey] = true
		}
		portKey := fmt.Sprintf("%d/%s", port.Port, protocol)
		if seenPorts[portKey] {
			allErrs = append(allErrs, errors.Duplicate(portPath, portKey))
		}
		seenPorts[portKey] = true
	}
	return allErrs
}

// validateEndpoints checks an Endpoints object, normally written by the
// endpoints controller: addresses must be IPs and ports valid.
func validateEndpoints(ep *api.Endpoints) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&ep.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateEndpointSubsets(ep.Subsets)...)
}

func validateEndpointSubsets(subsets []api.EndpointSubset) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, subset := range subsets {
		subsetPath := index("subsets", i)
		for _, list := range []struct {
			name      string
			addresses []api.EndpointAddress
		}{{"addresses", subset.Addresses}, {"notReadyAddresses", subset.NotReadyAddresses}} {
			for j, addr := range list.addresses {
				addrPath := index(child(subsetPath, list.name), j)
				if net.ParseIP(addr.IP) == nil {
					allErrs = append(allErrs, errors.Invalid(child(addrPath, "ip"), addr.IP, "must be a valid IP address"))
				}
				allErrs = append(allErrs, validateDNS1123LabelIfSet(addr.Hostname, child(addrPath, "hostname"))...)
			}
		}
		for j, port := range subset.Ports {
			portPath := index(child(subsetPath, "ports"), j)
			if port.Name != "" {
				allErrs = append(allErrs, validateDNS1123Label(port.Name, child(portPath, "name"))...)
			}
			allErrs = append(allErrs, validatePortNum(port.Port, child(portPath, "port"))...)
			allErrs = append(allErrs, validateProtocol(port.Protocol, child(portPath, "protocol"))...)
		}
	}
	return allErrs
}
