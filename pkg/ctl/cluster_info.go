package ctl

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/ctl/printers"
	"kplane/pkg/restmapper"
)

// clusterServiceLabel marks the Services `cluster-info` lists, the cluster
// add-ons (DNS, dashboards) of kube-system.
const clusterServiceLabel = "kubernetes.io/cluster-service=true"

// Terminal colours of kubectl's cluster-info: names green, addresses
// yellow (go-colortext's sequences).
const (
	colourGreen  = "\x1b[0;32m"
	colourYellow = "\x1b[0;33m"
	colourReset  = "\x1b[0m"
)

// newClusterInfoCommand is `ctl cluster-info`.
func newClusterInfoCommand(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster-info",
		Short: "Print the addresses of the control plane and the cluster services",
		Long: `cluster-info prints where the apiserver listens, then one line per Service
of kube-system (or -n) labelled kubernetes.io/cluster-service=true, with
the apiserver proxy address that reaches it. kplane runs no add-ons, so
usually only the control plane is listed.`,
		Example: "  ctl cluster-info",
		// kubectl ignores arguments here.
		RunE: func(cmd *cobra.Command, _ []string) error { return runClusterInfo(cmd, f) },
	}
	cmd.AddCommand(newClusterInfoDumpCommand(f))
	return cmd
}

// runClusterInfo is `ctl cluster-info`.
func runClusterInfo(cmd *cobra.Command, f *factory) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	namespace := f.namespaceFlag
	if namespace == "" {
		namespace = "kube-system"
	}
	services, err := c.Services(namespace).List(cmd.Context(), client.ListOptions{LabelSelector: clusterServiceLabel})
	if err == nil {
		colour := isTerminal(f.out())
		printClusterService(f.out(), colour, "Kubernetes control plane", c.Host())
		for _, svc := range services.Items {
			name := svc.Labels["kubernetes.io/name"]
			if name == "" {
				name = svc.Name
			}
			printClusterService(f.out(), colour, name, clusterServiceLink(c.Host(), svc.Namespace, svc.Name, svc.Spec.Ports, svc.Status.LoadBalancer.Ingress))
		}
	}
	fmt.Fprintf(f.out(), "\nTo further debug and diagnose cluster problems, use '%s cluster-info dump'.\n", cmd.Root().Name())
	return err
}

// printClusterService prints one "<name> is running at <address>" line.
func printClusterService(w io.Writer, colour bool, name, link string) {
	if colour {
		fmt.Fprintf(w, "%s%s%s is running at %s%s%s\n", colourGreen, name, colourReset, colourYellow, link, colourReset)
		return
	}
	fmt.Fprintf(w, "%s is running at %s\n", name, link)
}

// clusterServiceLink is the address cluster-info gives a Service: its
// load balancer's ports when it has one, else the apiserver's proxy path
// to it, "[https:]NAME[:PORTNAME]" naming the first port (https when the
// port is named https or is 443), as kubectl builds it.
func clusterServiceLink(host, namespace, name string, ports []api.ServicePort, ingress []api.LoadBalancerIngress) string {
	if len(ingress) > 0 {
		ip := ingress[0].IP
		if ip == "" {
			ip = ingress[0].Hostname
		}
		link := ""
		for _, p := range ports {
			link += "http://" + ip + ":" + strconv.Itoa(int(p.Port)) + " "
		}
		return link
	}
	target := name
	if len(ports) > 0 {
		switch {
		case ports[0].Name == "https" || ports[0].Port == 443:
			target = "https:" + name + ":" + ports[0].Name
		case ports[0].Name != "":
			target = name + ":" + ports[0].Name
		}
	}
	return host + "/api/v1/namespaces/" + namespace + "/services/" + target + "/proxy"
}

// clusterInfoDumpKinds are the resources `cluster-info dump` lists in each
// namespace, in kubectl's order.
var clusterInfoDumpKinds = []string{"events", "replicationcontrollers", "services", "daemonsets.apps", "deployments.apps", "replicasets.apps", "pods"}

// newClusterInfoDumpCommand is `ctl cluster-info dump`.
func newClusterInfoDumpCommand(f *factory) *cobra.Command {
	var namespaces []string
	var allNamespaces bool
	cmd := &cobra.Command{
		Use:   "dump",
		Short: "Print the cluster's state as JSON lists, for debugging",
		Long: `dump prints, as JSON, the nodes and then, for kube-system and the current
namespace (or --namespaces, or every namespace with -A), the Events,
ReplicationControllers, Services, DaemonSets, Deployments, ReplicaSets and
Pods. Unlike kubectl it prints no container logs (use ` + "`ctl logs`" + `) and
writes only to standard output.`,
		Example: `  ctl cluster-info dump > cluster.json
  ctl cluster-info dump -A`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, err := f.Client()
			if err != nil {
				return err
			}
			m, err := f.Mapper(ctx)
			if err != nil {
				return err
			}
			nodes, err := m.ResourceFor("nodes")
			if err != nil {
				return err
			}
			list, err := c.Dynamic(nodes.Client()).List(ctx, client.ListOptions{})
			if err != nil {
				return err
			}
			if err := printDumpList(f.out(), list.Items, nodes); err != nil {
				return err
			}
			if allNamespaces {
				nsList, err := c.Namespaces().List(ctx, client.ListOptions{})
				if err != nil {
					return err
				}
				namespaces = nil
				for _, ns := range nsList.Items {
					namespaces = append(namespaces, ns.Name)
				}
			} else if len(namespaces) == 0 {
				current, _, err := f.Namespace()
				if err != nil {
					return err
				}
				namespaces = []string{"kube-system"}
				if current != "kube-system" {
					namespaces = append(namespaces, current)
				}
			}
			for _, ns := range namespaces {
				for _, kind := range clusterInfoDumpKinds {
					r, err := m.ResourceFor(kind)
					if err != nil {
						return err
					}
					list, err := c.Dynamic(r.Client()).Namespace(ns).List(ctx, client.ListOptions{})
					if err != nil {
						return err
					}
					if err := printDumpList(f.out(), list.Items, r); err != nil {
						return err
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&namespaces, "namespaces", nil, "the namespaces to dump (default: kube-system and the current namespace)")
	cmd.Flags().BoolVarP(&allNamespaces, "all-namespaces", "A", false, "dump every namespace")
	return cmd
}

// printDumpList prints one list of the dump as a typed List, indented JSON.
func printDumpList(w io.Writer, items []map[string]any, r restmapper.APIResource) error {
	for i := range items {
		items[i] = withTypeMeta(items[i], r.GroupVersion(), r.Kind)
	}
	if items == nil {
		items = []map[string]any{} // [] rather than null
	}
	// The list's own fields in kubectl's order: kind first.
	return printers.PrintJSON(w, struct {
		Kind       string           `json:"kind"`
		APIVersion string           `json:"apiVersion"`
		Metadata   map[string]any   `json:"metadata"`
		Items      []map[string]any `json:"items"`
	}{r.Kind + "List", r.GroupVersion(), map[string]any{}, items})
}
