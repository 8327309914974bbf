package endpoints

import (
	"kplane/pkg/api"
)

// addr is the address controllertest.WebPod(name, ip) gets on node-1.
func addr(name, ip string) api.EndpointAddress {
	node := "node-1"
	return api.EndpointAddress{IP: ip, NodeName: &node,
		TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "default", Name: name, UID: "uid-" + name}}
}

func tcp(name string, port int32) api.EndpointPort {
	return api.EndpointPort{Name: name, Port: port, Protocol: api.ProtocolTCP}
}
