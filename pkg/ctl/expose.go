package ctl

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
)

// exposeOptions are the flags of `ctl expose`.
type exposeOptions struct {
	f     *factory
	sel   selection
	write writeFlags

	name            string
	port            string
	targetPort      string
	protocol        string
	serviceType     string
	labels          string
	selector        string
	clusterIP       string
	externalIP      string
	sessionAffinity string
}

// newExposeCommand is `ctl expose`.
func newExposeCommand(f *factory) *cobra.Command {
	o := &exposeOptions{f: f}
	cmd := &cobra.Command{
		Use:   "expose (-f FILENAME | TYPE NAME) [--port=port] [--protocol=TCP|UDP|SCTP] [--target-port=number-or-name] [--name=name] [--type=type]",
		Short: "Create a Service for a pod or a workload's pods",
		Long: `expose creates a Service that selects the same pods as a Pod (its labels), a
Deployment or ReplicaSet (its selector), a ReplicationController or another
Service. Unless flags say otherwise the Service takes the object's name and
labels, and one port per container port of the pod template (with the
container port's protocol); --port makes a single port, and --target-port
the pod port it forwards to (by default the same number).

The endpoints controller then lists the selected pods' IPs behind the
Service; ` + "`ctl get endpointslices`" + ` shows them.`,
		Example: `  ctl expose deployment web --port=80 --target-port=8080
  ctl expose pod solo --name=solo-svc --type=NodePort
  ctl expose deploy/web --dry-run=client -o yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), cmd.CommandPath(), args)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&o.name, "name", "", "the Service's name (default: the object's name)")
	flags.StringVar(&o.port, "port", "", "the Service's one port (default: the container ports of the pods)")
	flags.StringVar(&o.targetPort, "target-port", "", "the pods' port (a number or a container port's name) the Service forwards to (default: the port)")
	flags.StringVar(&o.protocol, "protocol", "", "TCP, UDP or SCTP (default: each container port's protocol, else TCP)")
	flags.StringVar(&o.serviceType, "type", "", "ClusterIP, NodePort, LoadBalancer or ExternalName (default: left to the server, ClusterIP)")
	flags.StringVarP(&o.labels, "labels", "l", "", "the Service's labels, key=value[,key=value…] (default: the object's labels)")
	flags.StringVar(&o.selector, "selector", "", "the pods the Service selects, key=value[,key=value…] (default: the object's selector)")
	flags.StringVar(&o.clusterIP, "cluster-ip", "", "the cluster IP to ask for; None makes a headless Service")
	flags.StringVar(&o.externalIP, "external-ip", "", "an external IP the Service also answers on")
	flags.StringVar(&o.sessionAffinity, "session-affinity", "", "None or ClientIP (send one client's connections to one pod)")
	o.sel.addFlags(flags, selectionFlags{usage: "identifying the resource to expose a service"})
	o.write.add(flags, "kubectl-expose")
	return cmd
}

// exposableKinds are the kinds kubectl's CanBeExposed accepts.
var exposableKinds = map[string]bool{"Pod": true, "Service": true, "ReplicationController": true, "Deployment": true, "ReplicaSet": true}

// run is `ctl expose`.
func (o *exposeOptions) run(ctx context.Context, commandPath string, args []string) error {
	if _, _, _, err := o.write.parsed(); err != nil {
		return err
	}
	if o.sel.empty(args) {
		return errNoResources
	}
	found, err := o.sel.visit(ctx, o.f, args, commandPath)
	if err != nil {
		return err
	}
	if len(found.errs) > 0 {
		return found.errs[0]
	}
	for _, info := range found.infos {
		svc, err := o.service(info)
		if err != nil {
			return err
		}
		if err := generatedAs(ctx, o.f, &o.write, svc, "", "exposed"); err != nil {
			return err
		}
	}
	return nil
}

// service builds the Service that exposes one object.
func (o *exposeOptions) service(info resourceInfo) (map[string]any, error) {
	obj := info.object
	if !exposableKinds[info.resource.Kind] {
		return nil, fmt.Errorf("cannot expose a %s", info.resource.Kind)
	}
	selector, err := o.podSelector(obj, info.resource.Kind)
	if err != nil {
		return nil, err
	}
	var labels map[string]any
	if o.labels != "" {
		if labels, err = parseLabelSpec(o.labels); err != nil {
			return nil, err
		}
	} else {
		meta, _ := obj["metadata"].(map[string]any)
		labels, _ = meta["labels"].(map[string]any)
	}
	ports, err := o.ports(obj, info.resource.Kind)
	if err != nil {
		return nil, err
	}
	name := o.name
	if name == "" {
		name = info.name
	}
	svc := serviceObject(name, labels, selector, ports, o.serviceType)
	spec := svc["spec"].(map[string]any)
	if o.clusterIP != "" {
		spec["clusterIP"] = o.clusterIP
	}
	if o.externalIP != "" {
		spec["externalIPs"] = []any{o.externalIP}
	}
	if o.sessionAffinity != "" {
		spec["sessionAffinity"] = o.sessionAffinity
	}
	return svc, nil
}

// podSelector is --selector, or the object's own pod selector as a map,
// as kubectl's MapBasedSelectorForObject reads it.
func (o *exposeOptions) podSelector(obj map[string]any, kind string) (map[string]any, error) {
	if o.selector != "" {
		return parseLabelSpec(o.selector)
	}
	spec, _ := obj["spec"].(map[string]any)
	var selector map[string]any
	switch kind {
	case "Pod":
		meta, _ := obj["metadata"].(map[string]any)
		selector, _ = meta["labels"].(map[string]any)
		if len(selector) == 0 {
			return nil, fmt.Errorf("the pod has no labels and cannot be exposed")
		}
	case "Service":
		selector, _ = spec["selector"].(map[string]any)
		if len(selector) == 0 {
			return nil, fmt.Errorf("the service has no pod selector set")
		}
	case "ReplicationController":
		selector, _ = spec["selector"].(map[string]any)
	default: // Deployment, ReplicaSet: a LabelSelector
		ls, _ := spec["selector"].(map[string]any)
		if expressions, _ := ls["matchExpressions"].([]any); len(expressions) > 0 {
			return nil, fmt.Errorf("couldn't convert expressions - %q to map-based selector format", fmt.Sprint(expressions))
		}
		selector, _ = ls["matchLabels"].(map[string]any)
	}
	return selector, nil
}

// ports are --port, or one port per container port (named port-1, port-2…
// when there are several), each forwarding to --target-port or to itself.
func (o *exposeOptions) ports(obj map[string]any, kind string) ([]servicePortSpec, error) {
	var found []servicePortSpec
	if o.port != "" {
		port, err := strconv.Atoi(o.port)
		if err != nil {
			return nil, err
		}
		found = []servicePortSpec{{port: int64(port)}}
	} else {
		found = objectPorts(obj, kind)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("couldn't find port via --port flag or introspection")
	}
	for i := range found {
		p := &found[i]
		if len(found) > 1 {
			p.name = fmt.Sprintf("port-%d", i+1)
		}
		if o.protocol != "" || p.protocol == "" {
			p.protocol = o.protocol
		}
		if p.protocol == "" {
			p.protocol = "TCP"
		}
		p.targetPort = p.port
		if o.targetPort != "" {
			if n, err := strconv.Atoi(o.targetPort); err == nil {
				p.targetPort = int64(n)
			} else {
				p.targetPort = o.targetPort
			}
		}
	}
	return found, nil
}

// objectPorts are the ports a Service exposing obj offers by default: a
// Service's own ports, else the container ports of the pod (template).
func objectPorts(obj map[string]any, kind string) []servicePortSpec {
	var out []servicePortSpec
	if kind == "Service" {
		spec, _ := obj["spec"].(map[string]any)
		ports, _ := spec["ports"].([]any)
		for _, raw := range ports {
			p, _ := raw.(map[string]any)
			port, _ := nestedInteger(p, "port")
			protocol, _ := p["protocol"].(string)
			out = append(out, servicePortSpec{port: port, protocol: protocol})
		}
		return out
	}
	spec, ok := podSpecOf(deepCopyObject(obj))
	if !ok {
		return nil
	}
	for _, c := range containersOf(spec, false) {
		ports, _ := c["ports"].([]any)
		for _, raw := range ports {
			p, _ := raw.(map[string]any)
			port, _ := nestedInteger(p, "containerPort")
			protocol, _ := p["protocol"].(string)
			out = append(out, servicePortSpec{port: port, protocol: protocol})
		}
	}
	return out
}
