package api

// Defaults of the networking.k8s.io/v1 kinds, as upstream's
// pkg/apis/networking/v1/defaults.go.

// setDefaultsNetworkPolicy gives every port a protocol (TCP) and, when the
// policy names no direction, restricts ingress — and egress too when it has
// egress rules: a policy written with only `egress:` rules still means "and
// these pods accept only what other policies allow in".
func setDefaultsNetworkPolicy(p *NetworkPolicy) {
	defaultPorts := func(ports []NetworkPolicyPort) {
		for i := range ports {
			if ports[i].Protocol == nil {
				tcp := ProtocolTCP
				ports[i].Protocol = &tcp
			}
		}
	}
	for i := range p.Spec.Ingress {
		defaultPorts(p.Spec.Ingress[i].Ports)
	}
	for i := range p.Spec.Egress {
		defaultPorts(p.Spec.Egress[i].Ports)
	}
	if len(p.Spec.PolicyTypes) == 0 {
		p.Spec.PolicyTypes = []PolicyType{PolicyTypeIngress}
		if len(p.Spec.Egress) > 0 {
			p.Spec.PolicyTypes = append(p.Spec.PolicyTypes, PolicyTypeEgress)
		}
	}
}

// setDefaultsIngressClass scopes a parameters reference to the cluster
// unless it says otherwise.
func setDefaultsIngressClass(c *IngressClass) {
	if p := c.Spec.Parameters; p != nil && p.Scope == nil {
		scope := IngressClassParametersReferenceScopeCluster
		p.Scope = &scope
	}
}
