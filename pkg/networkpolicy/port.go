package networkpolicy

import "kplane/pkg/api"

// portsMatch reports whether one of a rule's ports matches the
// connection's destination port and protocol; no ports match every port.
func portsMatch(ports []api.NetworkPolicyPort, conn Connection) bool {
	if len(ports) == 0 {
		return true
	}
	for i := range ports {
		if portMatches(&ports[i], conn) {
			return true
		}
	}
	return false
}

// portMatches reports whether one rule port matches: same protocol (TCP
// when unset), and no port (every port of the protocol), the port number,
// a number in port..endPort, or the name of the destination pod's
// container port the connection goes to.
func portMatches(port *api.NetworkPolicyPort, conn Connection) bool {
	protocol := api.ProtocolTCP
	if port.Protocol != nil {
		protocol = *port.Protocol
	}
	if protocol != conn.Protocol {
		return false
	}
	if port.Port == nil {
		return true
	}
	if port.Port.Type == api.IntOrStringString {
		return namedPortIs(podOf(conn.Destination), port.Port.StrVal, protocol, conn.Port)
	}
	last := port.Port.IntVal
	if port.EndPort != nil {
		last = *port.EndPort
	}
	return port.Port.IntVal <= conn.Port && conn.Port <= last
}

// namedPortIs reports whether pod has a container port called name, of
// protocol, whose number is number. A destination that is no pod has no
// named ports.
func namedPortIs(pod *api.Pod, name string, protocol api.Protocol, number int32) bool {
	if pod == nil {
		return false
	}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			pp := p.Protocol
			if pp == "" {
				pp = api.ProtocolTCP
			}
			if p.Name == name && pp == protocol && p.ContainerPort == number {
				return true
			}
		}
	}
	return false
}
