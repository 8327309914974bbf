package servicelb

// This file records, for the debug journal (what `ctl why service/web`
// shows), each decision the controller makes about a Service's load
// balancer: to ensure one, over which nodes; to delete one, and why; to
// leave a Service of another loadBalancerClass alone; to move a load
// balancer to a new node set.

import (
	"fmt"
	"strconv"
	"strings"

	"kplane/pkg/api"
	"kplane/pkg/controllers/controllerutil"
	"kplane/pkg/debug"
)

// decisionSource is the upstream file these decisions mirror.
const decisionSource = "staging/src/k8s.io/cloud-provider/controllers/service/controller.go"

// recordEnsure records "Service default/web is type LoadBalancer without a
// loadBalancerClass → ensure its load balancer over nodes node1, node2,
// ports 80/TCP, address from the pool".
func (c *Controller) recordEnsure(svc *api.Service, hosts []*api.Node) {
	if !c.decisions.Enabled() {
		return
	}
	address := "address from the pool"
	if svc.Spec.LoadBalancerIP != "" {
		address = "requested address " + svc.Spec.LoadBalancerIP
	}
	names := hostNames(hosts)
	c.decisions.Record(&svc.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("Service %s is type LoadBalancer without a loadBalancerClass → ensure its load balancer over nodes %s, ports %s, %s",
			keyOf(svc), controllerutil.OrNone(names), controllerutil.OrNone(servicePorts(svc)), address),
		Values: map[string]string{"action": "ensure", "nodes": strconv.Itoa(len(names)), "finalizer": strconv.FormatBool(hasCleanupFinalizer(svc))},
		Source: decisionSource,
	})
}

// recordCleanup records "Service default/web is being deleted and holds the
// load-balancer-cleanup finalizer → delete its load balancer, remove the
// finalizer".
func (c *Controller) recordCleanup(svc *api.Service, exists bool) {
	if !c.decisions.Enabled() {
		return
	}
	why := "is being deleted"
	if svc.DeletionTimestamp == nil {
		why = "is no longer type LoadBalancer (now " + string(svc.Spec.Type) + ")"
	}
	step := "delete its load balancer, remove the finalizer"
	if !exists {
		step = "no load balancer left in the cloud: remove the finalizer"
	}
	c.decisions.Record(&svc.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("Service %s %s and holds the load-balancer-cleanup finalizer → %s", keyOf(svc), why, step),
		Values:  map[string]string{"action": "delete", "loadBalancerExists": strconv.FormatBool(exists)},
		Source:  decisionSource,
	})
}

// recordOtherClass records that a Service of another loadBalancerClass is
// left to its own controller.
func (c *Controller) recordOtherClass(svc *api.Service) {
	if !c.decisions.Enabled() || svc.Spec.LoadBalancerClass == nil {
		return
	}
	c.decisions.Record(&svc.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("Service %s has loadBalancerClass %s → left to that class's controller; the cloud serves Services without a class",
			keyOf(svc), *svc.Spec.LoadBalancerClass),
		Values: map[string]string{"action": "none", "loadBalancerClass": *svc.Spec.LoadBalancerClass},
		Source: decisionSource,
	})
}

// recordNodes records "node set node1, node2 → node1, node2, node3: point
// the load balancer of default/web at it".
func (c *Controller) recordNodes(svc *api.Service, before, after []string) {
	if !c.decisions.Enabled() {
		return
	}
	was := controllerutil.OrNone(before)
	if before == nil {
		was = "unknown (first node sync)"
	}
	c.decisions.Record(&svc.ObjectMeta, debug.Decision{
		Message: fmt.Sprintf("load balancer nodes %s → %s: point the load balancer of %s at them", was, controllerutil.OrNone(after), keyOf(svc)),
		Values:  map[string]string{"action": "update-hosts", "nodes": strconv.Itoa(len(after))},
		Source:  decisionSource,
	})
}

// servicePorts lists svc's ports as "80/TCP".
func servicePorts(svc *api.Service) []string {
	var ports []string
	for _, p := range svc.Spec.Ports {
		ports = append(ports, strconv.Itoa(int(p.Port))+"/"+strings.ToUpper(string(orTCP(p.Protocol))))
	}
	return ports
}

func orTCP(p api.Protocol) api.Protocol {
	if p == "" {
		return api.ProtocolTCP
	}
	return p
}
