package validation

import (
	"net/netip"
	"regexp"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/api/errors"
)

// This file checks the networking.k8s.io/v1 kinds — Ingress, IngressClass
// and NetworkPolicy — with upstream's rules and wording
// (pkg/apis/networking/validation).

// wildcardDNS1123SubdomainFmt is a host name with one leading wildcard
// label, as an Ingress rule's host may be: *.example.com.
const wildcardDNS1123SubdomainFmt = `\*\.` + dns1123SubdomainFmt

var wildcardDNS1123SubdomainRegexp = regexp.MustCompile("^" + wildcardDNS1123SubdomainFmt + "$")

// isWildcardDNS1123Subdomain checks a wildcard host name.
func isWildcardDNS1123Subdomain(value string) []string {
	var errs []string
	if len(value) > DNS1123SubdomainMaxLength {
		errs = append(errs, maxLenError(DNS1123SubdomainMaxLength))
	}
	if !wildcardDNS1123SubdomainRegexp.MatchString(value) {
		errs = append(errs, regexError("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, "+
			"which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character",
			wildcardDNS1123SubdomainFmt, "*.example.com"))
	}
	return errs
}

// validateIngressHost checks a host of a rule or of a TLS entry: a DNS
// name, possibly with a wildcard first label, never an IP address.
func validateIngressHost(host, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if _, err := netip.ParseAddr(host); err == nil {
		return append(allErrs, errors.Invalid(fldPath, host, "must be a DNS name, not an IP address"))
	}
	check := IsDNS1123Subdomain
	if strings.Contains(host, "*") {
		check = isWildcardDNS1123Subdomain
	}
	for _, msg := range check(host) {
		allErrs = append(allErrs, errors.Invalid(fldPath, host, msg))
	}
	return allErrs
}

// validateIngress checks a new Ingress.
func validateIngress(ing *api.Ingress) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&ing.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	allErrs = append(allErrs, validateIngressSpec(&ing.Spec)...)
	return append(allErrs, validateIngressStatus(&ing.Status)...)
}

// validateIngressUpdate checks an update: every field of an Ingress may change.
func validateIngressUpdate(ing, old *api.Ingress) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&ing.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateIngressSpec(&ing.Spec)...)
	return append(allErrs, validateIngressStatus(&ing.Status)...)
}

func validateIngressSpec(spec *api.IngressSpec) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		allErrs = append(allErrs, errors.Invalid("spec", spec.Rules, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		allErrs = append(allErrs, validateIngressBackend(spec.DefaultBackend, "spec.defaultBackend")...)
	}
	for i, tls := range spec.TLS {
		tlsPath := index("spec.tls", i)
		for j, host := range tls.Hosts {
			allErrs = append(allErrs, validateIngressHost(host, index(child(tlsPath, "hosts"), j))...)
		}
		if tls.SecretName != "" {
			for _, msg := range IsDNS1123Subdomain(tls.SecretName) {
				allErrs = append(allErrs, errors.Invalid(child(tlsPath, "secretName"), tls.SecretName, msg))
			}
		}
	}
	for i, rule := range spec.Rules {
		rulePath := index("spec.rules", i)
		if rule.Host != "" {
			allErrs = append(allErrs, validateIngressHost(rule.Host, child(rulePath, "host"))...)
		}
		if rule.HTTP != nil {
			allErrs = append(allErrs, validateHTTPIngressRule(rule.HTTP, child(rulePath, "http"))...)
		}
	}
	if name := spec.IngressClassName; name != nil {
		for _, msg := range IsDNS1123Subdomain(*name) {
			allErrs = append(allErrs, errors.Invalid("spec.ingressClassName", *name, msg))
		}
	}
	return allErrs
}

// supportedPathTypes are the path types, sorted as upstream lists them.
var supportedPathTypes = []string{string(api.PathTypeExact), string(api.PathTypeImplementationSpecific), string(api.PathTypePrefix)}

// invalidPathSequences may not appear in an Exact or Prefix path: they
// would be read differently by different proxies.
var invalidPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}

// invalidPathSuffixes may not end an Exact or Prefix path.
var invalidPathSuffixes = []string{"/..", "/."}

func validateHTTPIngressRule(http *api.HTTPIngressRuleValue, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if len(http.Paths) == 0 {
		allErrs = append(allErrs, errors.Required(child(fldPath, "paths"), ""))
	}
	for i, path := range http.Paths {
		pathPath := index(child(fldPath, "paths"), i)
		allErrs = append(allErrs, validateHTTPIngressPath(&path, pathPath)...)
		allErrs = append(allErrs, validateIngressBackend(&path.Backend, child(pathPath, "backend"))...)
	}
	return allErrs
}

func validateHTTPIngressPath(path *api.HTTPIngressPath, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if path.PathType == nil {
		return append(allErrs, errors.Required(child(fldPath, "pathType"), "pathType must be specified"))
	}
	valuePath := child(fldPath, "path")
	switch *path.PathType {
	case api.PathTypeExact, api.PathTypePrefix:
		if !strings.HasPrefix(path.Path, "/") {
			allErrs = append(allErrs, errors.Invalid(valuePath, path.Path, "must be an absolute path"))
		}
		for _, seq := range invalidPathSequences {
			if strings.Contains(path.Path, seq) {
				allErrs = append(allErrs, errors.Invalid(valuePath, path.Path, "must not contain '"+seq+"'"))
			}
		}
		for _, suffix := range invalidPathSuffixes {
			if strings.HasSuffix(path.Path, suffix) {
				allErrs = append(allErrs, errors.Invalid(valuePath, path.Path, "cannot end with '"+suffix+"'"))
			}
		}
	case api.PathTypeImplementationSpecific:
		if path.Path != "" && !strings.HasPrefix(path.Path, "/") {
			allErrs = append(allErrs, errors.Invalid(valuePath, path.Path, "must be an absolute path"))
		}
	default:
		allErrs = append(allErrs, errors.NotSupported(child(fldPath, "pathType"), string(*path.PathType), supportedPathTypes))
	}
	return allErrs
}

// validateIngressBackend checks a backend: exactly one of a Service (by a
// valid Service name, and a port by name or by number) or another resource.
func validateIngressBackend(backend *api.IngressBackend, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	switch svc, res := backend.Service, backend.Resource; {
	case svc != nil && res != nil:
		allErrs = append(allErrs, errors.Invalid(fldPath, "", "cannot set both resource and service backends"))
	case res != nil:
		resPath := child(fldPath, "resource")
		if res.Kind == "" {
			allErrs = append(allErrs, errors.Required(child(resPath, "kind"), ""))
		}
		if res.Name == "" {
			allErrs = append(allErrs, errors.Required(child(resPath, "name"), ""))
		}
	case svc != nil:
		namePath := child(fldPath, "service", "name")
		if svc.Name == "" {
			allErrs = append(allErrs, errors.Required(namePath, ""))
		} else {
			for _, msg := range NameIsDNS1035Label(svc.Name, false) {
				allErrs = append(allErrs, errors.Invalid(namePath, svc.Name, msg))
			}
		}
		portPath := child(fldPath, "service", "port")
		switch port := svc.Port; {
		case port.Name != "" && port.Number != 0:
			allErrs = append(allErrs, errors.Invalid(fldPath, "", "cannot set both port name & port number"))
		case port.Name != "":
			for _, msg := range IsValidPortName(port.Name) {
				allErrs = append(allErrs, errors.Invalid(child(portPath, "name"), port.Name, msg))
			}
		case port.Number != 0:
			allErrs = append(allErrs, validatePortNum(port.Number, child(portPath, "number"))...)
		default:
			allErrs = append(allErrs, errors.Required(fldPath, "port name or number is required"))
		}
	default:
		allErrs = append(allErrs, errors.Invalid(fldPath, "", "resource or service backend is required"))
	}
	return allErrs
}

// validateIngressStatus checks the addresses an ingress controller reported.
func validateIngressStatus(status *api.IngressStatus) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, lb := range status.LoadBalancer.Ingress {
		lbPath := index("status.loadBalancer.ingress", i)
		if lb.IP != "" {
			if _, err := netip.ParseAddr(lb.IP); err != nil {
				allErrs = append(allErrs, errors.Invalid(child(lbPath, "ip"), lb.IP, "must be a valid IP address"))
			}
		}
		if lb.Hostname != "" {
			for _, msg := range IsDNS1123Subdomain(lb.Hostname) {
				allErrs = append(allErrs, errors.Invalid(child(lbPath, "hostname"), lb.Hostname, msg))
			}
			if _, err := netip.ParseAddr(lb.Hostname); err == nil {
				allErrs = append(allErrs, errors.Invalid(child(lbPath, "hostname"), lb.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return allErrs
}

// maxIngressClassControllerLength bounds spec.controller, as upstream.
const maxIngressClassControllerLength = 250

// domainPrefixedPathRegexp is what may follow the domain of a
// domain-prefixed path such as k8s.io/ingress-nginx.
var domainPrefixedPathRegexp = regexp.MustCompile(`^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$`)

// validateIngressClass checks a new IngressClass.
func validateIngressClass(class *api.IngressClass) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&class.ObjectMeta, false, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateIngressClassSpec(&class.Spec)...)
}

// validateIngressClassUpdate checks an update; the controller may not
// change, since Ingresses of the class were configured by it.
func validateIngressClassUpdate(class, old *api.IngressClass) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&class.ObjectMeta, &old.ObjectMeta, "metadata")
	allErrs = append(allErrs, validateIngressClassSpec(&class.Spec)...)
	return append(allErrs, ValidateImmutableField(class.Spec.Controller, old.Spec.Controller, "spec.controller")...)
}

func validateIngressClassSpec(spec *api.IngressClassSpec) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	const controllerPath = "spec.controller"
	if len(spec.Controller) > maxIngressClassControllerLength {
		allErrs = append(allErrs, tooLong(controllerPath, maxIngressClassControllerLength))
	}
	allErrs = append(allErrs, validateDomainPrefixedPath(spec.Controller, controllerPath)...)
	if p := spec.Parameters; p != nil {
		allErrs = append(allErrs, validateIngressClassParameters(p, "spec.parameters")...)
	}
	return allErrs
}

// validateDomainPrefixedPath checks a name such as "k8s.io/ingress-nginx":
// a DNS subdomain, a slash, and a path.
func validateDomainPrefixedPath(value, fldPath string) errors.FieldErrorList {
	if value == "" {
		return errors.FieldErrorList{errors.Required(fldPath, "")}
	}
	host, path, found := strings.Cut(value, "/")
	if !found || path == "" {
		return errors.FieldErrorList{errors.Invalid(fldPath, value, `must be a domain-prefixed path (such as "acme.io/foo")`)}
	}
	var allErrs errors.FieldErrorList
	for _, msg := range IsDNS1123Subdomain(host) {
		allErrs = append(allErrs, errors.Invalid(fldPath, host, msg))
	}
	if !domainPrefixedPathRegexp.MatchString(path) {
		allErrs = append(allErrs, errors.Invalid(fldPath, path, regexError("Invalid path", domainPrefixedPathRegexp.String())))
	}
	return allErrs
}

// supportedParameterScopes are the scopes of an IngressClass's parameters.
var supportedParameterScopes = []string{api.IngressClassParametersReferenceScopeCluster, api.IngressClassParametersReferenceScopeNamespace}

func validateIngressClassParameters(p *api.IngressClassParametersReference, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	if p.Kind == "" {
		allErrs = append(allErrs, errors.Required(child(fldPath, "kind"), ""))
	}
	if p.Name == "" {
		allErrs = append(allErrs, errors.Required(child(fldPath, "name"), ""))
	}
	scope := ""
	if p.Scope != nil {
		scope = *p.Scope
	}
	switch scope {
	case api.IngressClassParametersReferenceScopeCluster:
		if p.Namespace != nil {
			allErrs = append(allErrs, errors.Forbidden(child(fldPath, "namespace"), "`parameters.scope` is set to 'Cluster'"))
		}
	case api.IngressClassParametersReferenceScopeNamespace:
		if p.Namespace == nil {
			allErrs = append(allErrs, errors.Required(child(fldPath, "namespace"), "`parameters.scope` is set to 'Namespace'"))
		}
	case "":
		allErrs = append(allErrs, errors.Required(child(fldPath, "scope"), ""))
	default:
		allErrs = append(allErrs, errors.NotSupported(child(fldPath, "scope"), scope, supportedParameterScopes))
	}
	return allErrs
}

// validateNetworkPolicy checks a new NetworkPolicy.
func validateNetworkPolicy(p *api.NetworkPolicy) errors.FieldErrorList {
	allErrs := ValidateObjectMeta(&p.ObjectMeta, true, NameIsDNSSubdomain, "metadata")
	return append(allErrs, validateNetworkPolicySpec(&p.Spec)...)
}

// validateNetworkPolicyUpdate checks an update: the whole spec may change.
func validateNetworkPolicyUpdate(p, old *api.NetworkPolicy) errors.FieldErrorList {
	allErrs := ValidateObjectMetaUpdate(&p.ObjectMeta, &old.ObjectMeta, "metadata")
	return append(allErrs, validateNetworkPolicySpec(&p.Spec)...)
}

// supportedPolicyTypes are the directions a policy may restrict.
var supportedPolicyTypes = []string{string(api.PolicyTypeEgress), string(api.PolicyTypeIngress)}

func validateNetworkPolicySpec(spec *api.NetworkPolicySpec) errors.FieldErrorList {
	allErrs := ValidateLabelSelector(&spec.PodSelector, "spec.podSelector")
	for i, rule := range spec.Ingress {
		rulePath := index("spec.ingress", i)
		allErrs = append(allErrs, validateNetworkPolicyPorts(rule.Ports, child(rulePath, "ports"))...)
		allErrs = append(allErrs, validateNetworkPolicyPeers(rule.From, child(rulePath, "from"))...)
	}
	for i, rule := range spec.Egress {
		rulePath := index("spec.egress", i)
		allErrs = append(allErrs, validateNetworkPolicyPorts(rule.Ports, child(rulePath, "ports"))...)
		allErrs = append(allErrs, validateNetworkPolicyPeers(rule.To, child(rulePath, "to"))...)
	}
	for i, t := range spec.PolicyTypes {
		if t != api.PolicyTypeIngress && t != api.PolicyTypeEgress {
			allErrs = append(allErrs, errors.NotSupported(index("spec.policyTypes", i), string(t), supportedPolicyTypes))
		}
	}
	if len(spec.PolicyTypes) > len(supportedPolicyTypes) {
		allErrs = append(allErrs, errors.Invalid("spec.policyTypes", spec.PolicyTypes, "may not specify more than two policyTypes"))
	}
	return allErrs
}

func validateNetworkPolicyPorts(ports []api.NetworkPolicyPort, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, port := range ports {
		portPath := index(fldPath, i)
		if port.Protocol != nil {
			allErrs = append(allErrs, validateProtocol(*port.Protocol, child(portPath, "protocol"))...)
		}
		if port.Port != nil {
			allErrs = append(allErrs, ValidatePortNumOrName(*port.Port, child(portPath, "port"))...)
		}
		if port.EndPort == nil {
			continue
		}
		endPath := child(portPath, "endPort")
		switch {
		case port.Port == nil:
			allErrs = append(allErrs, errors.Required(child(portPath, "port"), "must be specified when endPort is specified"))
		case port.Port.Type == api.IntOrStringString:
			allErrs = append(allErrs, errors.Invalid(endPath, *port.EndPort, "may not be specified when `port` is non-numeric"))
		case *port.EndPort < port.Port.IntVal:
			allErrs = append(allErrs, errors.Invalid(endPath, *port.EndPort, "must be greater than or equal to `port`"))
		default:
			allErrs = append(allErrs, validatePortNum(*port.EndPort, endPath)...)
		}
	}
	return allErrs
}

// validateNetworkPolicyPeers checks sources or destinations: each names
// pods, namespaces, or an IP block — and an IP block stands alone.
func validateNetworkPolicyPeers(peers []api.NetworkPolicyPeer, fldPath string) errors.FieldErrorList {
	var allErrs errors.FieldErrorList
	for i, peer := range peers {
		peerPath := index(fldPath, i)
		n := 0
		if peer.PodSelector != nil {
			n++
			allErrs = append(allErrs, ValidateLabelSelector(peer.PodSelector, child(peerPath, "podSelector"))...)
		}
		if peer.NamespaceSelector != nil {
			n++
			allErrs = append(allErrs, ValidateLabelSelector(peer.NamespaceSelector, child(peerPath, "namespaceSelector"))...)
		}
		if peer.IPBlock != nil {
			n++
			allErrs = append(allErrs, validateIPBlock(peer.IPBlock, child(peerPath, "ipBlock"))...)
		}
		switch {
		case n == 0:
			allErrs = append(allErrs, errors.Required(peerPath, "must specify a peer"))
		case peer.IPBlock != nil && n > 1:
			allErrs = append(allErrs, errors.Forbidden(peerPath, "may not specify both ipBlock and another peer"))
		}
	}
	return allErrs
}

// validateIPBlock checks a CIDR and that each exception lies strictly inside it.
func validateIPBlock(block *api.IPBlock, fldPath string) errors.FieldErrorList {
	cidrPath := child(fldPath, "cidr")
	if block.CIDR == "" {
		return errors.FieldErrorList{errors.Required(cidrPath, "")}
	}
	cidr, err := netip.ParsePrefix(block.CIDR)
	if err != nil {
		return errors.FieldErrorList{errors.Invalid(cidrPath, block.CIDR, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")}
	}
	var allErrs errors.FieldErrorList
	for i, except := range block.Except {
		exceptPath := index(child(fldPath, "except"), i)
		sub, err := netip.ParsePrefix(except)
		if err != nil {
			allErrs = append(allErrs, errors.Invalid(exceptPath, except, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"))
			continue
		}
		if sub.Bits() <= cidr.Bits() || !cidr.Contains(sub.Addr()) {
			allErrs = append(allErrs, errors.Invalid(exceptPath, except, "must be a strict subset of `cidr`"))
		}
	}
	return allErrs
}
