package ctl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// servicePortSpec is one port of a generated Service.
type servicePortSpec struct {
	name       string
	port       int64
	targetPort any // a number, or a container port's name
	protocol   string
	nodePort   int64
}

// serviceObject builds the Service kubectl's generators build (create
// service, expose, run --expose): labels and selector as given, the ports,
// and serviceType when not "" (expose leaves the type to the server).
func serviceObject(name string, labels, selector map[string]any, ports []servicePortSpec, serviceType string) map[string]any {
	meta := map[string]any{"name": name, "creationTimestamp": nil}
	if len(labels) > 0 {
		meta["labels"] = labels
	}
	spec := map[string]any{}
	if len(selector) > 0 {
		spec["selector"] = selector
	}
	if serviceType != "" {
		spec["type"] = serviceType
	}
	var list []any
	for _, p := range ports {
		port := map[string]any{"port": p.port, "protocol": p.protocol, "targetPort": p.targetPort}
		if p.name != "" {
			port["name"] = p.name
		}
		if p.nodePort > 0 {
			port["nodePort"] = p.nodePort
		}
		list = append(list, port)
	}
	if len(list) > 0 {
		spec["ports"] = list
	}
	return map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": meta,
		"spec":     spec,
		"status":   map[string]any{"loadBalancer": map[string]any{}},
	}
}

// newCreateServiceCommand is `ctl create service TYPE NAME`.
func newCreateServiceCommand(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "service",
		Aliases: []string{"svc"},
		Short:   "Create a Service of one of the four types",
		Long: `service creates a Service named NAME that selects the pods labelled
app=NAME (what ` + "`ctl create deployment NAME`" + ` labels its pods with).
The type is the subcommand: clusterip (a virtual IP inside the cluster),
nodeport (also a port on every node), loadbalancer (also an external
address, which nothing in kplane provides) or externalname (a DNS alias,
no selector).`,
		Args: cobra.NoArgs,
		RunE: helpWithoutSubcommand,
	}
	cmd.AddCommand(newCreateServiceTypeCommand(f, "clusterip", "ClusterIP", "a virtual IP that load-balances to the selected pods inside the cluster"))
	cmd.AddCommand(newCreateServiceTypeCommand(f, "nodeport", "NodePort", "a ClusterIP service that every node also serves on one port (30000-32767)"))
	cmd.AddCommand(newCreateServiceTypeCommand(f, "loadbalancer", "LoadBalancer", "a NodePort service for which a cloud provider would add an external address"))
	cmd.AddCommand(newCreateServiceTypeCommand(f, "externalname", "ExternalName", "a DNS CNAME to --external-name; it has no selector and no ports of its own"))
	return cmd
}

// newCreateServiceTypeCommand is one `ctl create service <type> NAME`.
func newCreateServiceTypeCommand(f *factory, use, serviceType, what string) *cobra.Command {
	var w writeFlags
	var tcp []string
	var clusterIP, externalName string
	var nodePort int
	cmd := &cobra.Command{
		Use:   use + " NAME --tcp=<port>:<targetPort>",
		Short: "Create a " + serviceType + " service",
		Long: use + " creates a " + serviceType + " Service: " + what + `.
Each --tcp=PORT[:TARGET] adds a TCP port named after the spec ("80",
"80-8080"); TARGET, the pod's port, defaults to PORT and may be a
container port's name.`,
		Example: fmt.Sprintf("  ctl create service %s web --tcp=80:8080\n  ctl create service %s web --tcp=80 --dry-run=client -o yaml", use, use),
		Args:    exactlyOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if serviceType != "ExternalName" && len(tcp) == 0 && clusterIP != "None" {
				return fmt.Errorf("at least one tcp port specifier must be provided")
			}
			var ports []servicePortSpec
			for _, spec := range tcp {
				p, err := parseTCPSpec(spec)
				if err != nil {
					return err
				}
				if serviceType == "NodePort" {
					p.nodePort = int64(nodePort)
				}
				ports = append(ports, p)
			}
			labels := map[string]any{"app": name}
			svc := serviceObject(name, labels, labels, ports, serviceType)
			spec := svc["spec"].(map[string]any)
			if clusterIP != "" {
				spec["clusterIP"] = clusterIP
			}
			if externalName != "" {
				spec["externalName"] = externalName
			}
			return generatedAs(cmd.Context(), f, &w, svc, "failed to create "+serviceType+" service", "created")
		},
	}
	flags := cmd.Flags()
	if serviceType != "ExternalName" {
		flags.StringSliceVar(&tcp, "tcp", nil, "a port, PORT[:TARGET_PORT]; repeat or separate with commas for more")
	}
	switch serviceType {
	case "ClusterIP":
		flags.StringVar(&clusterIP, "clusterip", "", "the cluster IP to ask for; None makes a headless service")
	case "NodePort":
		flags.IntVar(&nodePort, "node-port", 0, "the port every node serves the service on; 0 lets the server choose")
	case "ExternalName":
		flags.StringVar(&externalName, "external-name", "", "the DNS name the service is an alias of (required)")
		_ = cmd.MarkFlagRequired("external-name")
		flags.StringSliceVar(&tcp, "tcp", nil, "a port, PORT[:TARGET_PORT]; repeat for more")
	}
	w.add(flags, "kubectl-create")
	return cmd
}

// parseTCPSpec reads one --tcp=PORT[:TARGET] as kubectl does: the port
// is a number; the target a number or, otherwise, a port name.
func parseTCPSpec(spec string) (servicePortSpec, error) {
	portText, targetText, hasTarget := strings.Cut(spec, ":")
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return servicePortSpec{}, err
	}
	var target any = int64(port)
	if hasTarget {
		if n, err := strconv.Atoi(targetText); err == nil {
			target = int64(n)
		} else {
			target = targetText
		}
	}
	return servicePortSpec{name: strings.ReplaceAll(spec, ":", "-"), port: int64(port), targetPort: target, protocol: "TCP"}, nil
}
