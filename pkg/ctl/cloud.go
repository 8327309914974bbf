package ctl

// `ctl cloud`: the simulated cloud behind the cloud-controller-manager, as
// its debug API shows it — its load balancers, machines and routes — and
// the power buttons of its machines, for the lessons about the cloud
// controllers (docs/cloud-controller-manager.md).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"kplane/pkg/cloudprovider/simulated"
	"kplane/pkg/cluster"
	"kplane/pkg/debug"
	"kplane/pkg/kubelet"
)

// newCloudCommand is `ctl cloud`.
func newCloudCommand(streams IOStreams, access debugAccess) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cloud",
		Short: "Look at the simulated cloud: load balancers, instances, routes; shut down, start or delete a node's machine",
		Long: `cloud shows the simulated cloud "kplane" that the cloud-controller-manager
drives, as its debug API reports it:

  ctl cloud load-balancers   one per Service of type LoadBalancer: its address
                             (from --load-balancer-ip-range; a label, nothing
                             listens there), ports and the nodes it forwards to
  ctl cloud instances        one machine per node: providerID, type, zone, state
  ctl cloud routes           the route table: each node's pod range → the node

and changes the state of a node's machine, for the lessons about the
cloud-node-lifecycle controller:

  ctl cloud instance shutdown <node>   the machine is off: its kubelet stops too
  ctl cloud instance start <node>      the machine is on again: its kubelet resumes
  ctl cloud instance delete <node>     the machine is gone for good

A machine that is off or gone makes its node NotReady after the node-monitor
grace period (50 s; ` + "`ctl time advance`" + ` on a --virtual-clock cluster); then the
cloud-node-lifecycle controller taints it node.cloudprovider.kubernetes.io/shutdown,
or deletes the Node.`,
	}
	cmd.AddCommand(
		newCloudListCommand(streams, access, "load-balancers", []string{"lb", "loadbalancers"}, "List the cloud's load balancers", simulated.PathLoadBalancers, printLoadBalancers),
		newCloudListCommand(streams, access, "instances", []string{"instance-list"}, "List the cloud's machines, one per node", simulated.PathInstances, printInstances),
		newCloudListCommand(streams, access, "routes", nil, "List the cloud's routes: each node's pod range to the node", simulated.PathRoutes, printRoutes),
		newCloudInstanceCommand(streams, access),
	)
	return cmd
}

// cloudEndpoint finds the cloud-controller-manager's debug endpoint; when
// there is none, the error says how to get one.
func cloudEndpoint(endpoints []debug.Endpoint, dataDir string) (debug.Endpoint, error) {
	ep, err := endpointNamed(endpoints, cluster.CloudControllerManagerComponent, dataDir)
	if err != nil {
		return debug.Endpoint{}, fmt.Errorf("%w: the cluster runs without a cloud (build bin/cloud-controller-manager with `make build` and start it again)", err)
	}
	return ep, nil
}

// newCloudListCommand is one of `ctl cloud load-balancers|instances|routes`:
// GET path from the cloud-controller-manager and print it with print, or
// as JSON with -o json.
func newCloudListCommand(streams IOStreams, access debugAccess, use string, aliases []string, short, path string,
	print func(out io.Writer, raw json.RawMessage) (int, error)) *cobra.Command {
	dataDir, output := cluster.DefaultOptions().DataDir, ""
	cmd := &cobra.Command{
		Use:     use + " [-o json]",
		Aliases: aliases,
		Short:   short,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "" && output != "json" {
				return fmt.Errorf("unknown output format %q: want json, or nothing for a table", output)
			}
			raw, err := getFromCloud(cmd.Context(), access, dataDir, path)
			if err != nil {
				return err
			}
			if output == "json" {
				_, err := fmt.Fprintf(streams.Out, "%s\n", raw)
				return err
			}
			n, err := print(streams.Out, raw)
			if err == nil && n == 0 {
				fmt.Fprintf(streams.ErrOut, "No %s found in the cloud.\n", strings.ReplaceAll(use, "-", " "))
			}
			return err
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", dataDir, "the cluster's data directory")
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: json (default: a table)")
	return cmd
}

// getFromCloud reads path from the cloud-controller-manager's debug API.
func getFromCloud(ctx context.Context, access debugAccess, dataDir, path string) (json.RawMessage, error) {
	dc, endpoints, err := access(dataDir)
	if err != nil {
		return nil, err
	}
	ep, err := cloudEndpoint(endpoints, dataDir)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := dc.Get(ctx, ep, path, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// printLoadBalancers prints the load balancers as a table and returns how
// many there are.
func printLoadBalancers(out io.Writer, raw json.RawMessage) (int, error) {
	var lbs []simulated.LoadBalancerView
	if err := json.Unmarshal(raw, &lbs); err != nil {
		return 0, fmt.Errorf("decode load balancers: %w", err)
	}
	if len(lbs) == 0 {
		return 0, nil
	}
	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "NAME\tSERVICE\tADDRESS\tPORTS\tNODES")
	for _, lb := range lbs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", lb.Name, lb.Service, lb.Address, orNoneList(lb.Ports), orNoneList(lb.Nodes))
	}
	return len(lbs), w.Flush()
}

// printInstances prints the machines as a table.
func printInstances(out io.Writer, raw json.RawMessage) (int, error) {
	var instances []simulated.InstanceView
	if err := json.Unmarshal(raw, &instances); err != nil {
		return 0, fmt.Errorf("decode instances: %w", err)
	}
	if len(instances) == 0 {
		return 0, nil
	}
	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "NODE\tPROVIDER-ID\tTYPE\tZONE\tREGION\tSTATE")
	for _, in := range instances {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", in.Node, in.ProviderID, in.InstanceType, in.Zone, in.Region, in.State)
	}
	return len(instances), w.Flush()
}

// printRoutes prints the route table.
func printRoutes(out io.Writer, raw json.RawMessage) (int, error) {
	var routes []simulated.RouteView
	if err := json.Unmarshal(raw, &routes); err != nil {
		return 0, fmt.Errorf("decode routes: %w", err)
	}
	if len(routes) == 0 {
		return 0, nil
	}
	w := tabwriter.NewWriter(out, 0, 8, 3, ' ', 0)
	fmt.Fprintln(w, "DESTINATION CIDR\tTARGET NODE\tBLACKHOLE\tNAME")
	for _, r := range routes {
		fmt.Fprintf(w, "%s\t%s\t%t\t%s\n", r.DestinationCIDR, r.TargetNode, r.Blackhole, r.Name)
	}
	return len(routes), w.Flush()
}

// orNoneList joins items with "," or says <none>, as kubectl's tables do.
func orNoneList(items []string) string {
	if len(items) == 0 {
		return "<none>"
	}
	return strings.Join(items, ",")
}

// newCloudInstanceCommand is `ctl cloud instance shutdown|start|delete <node>`.
func newCloudInstanceCommand(streams IOStreams, access debugAccess) *cobra.Command {
	dataDir := cluster.DefaultOptions().DataDir
	cmd := &cobra.Command{
		Use:   "instance shutdown|start|delete <node>",
		Short: "Shut down, start or delete the machine of a node",
		Long: `instance changes the state of a node's machine in the simulated cloud, and does
to the node's kubelet what that does to a real one:

  shutdown   the machine is off (it still exists); its kubelet stops its heartbeat
  start      a shut-down machine is on again; its kubelet resumes its heartbeat
  delete     the machine is gone for good; its kubelet stops its heartbeat

The control plane then sees what it would see in a cloud: the node turns
NotReady after the node-monitor grace period (50 s), and the cloud-node-lifecycle
controller, which asks the cloud about every unready node each 5 s, taints a
shut-down machine's node node.cloudprovider.kubernetes.io/shutdown:NoSchedule
or deletes a deleted machine's Node.`,
		Example: `  ctl cloud instance shutdown node2
  ctl time advance 60s          # a cluster started with --virtual-clock
  kubectl get node node2 -o jsonpath='{.spec.taints}'
  ctl cloud instance start node2`,
		Args:      cobra.ExactArgs(2),
		ValidArgs: []string{"shutdown", "start", "delete"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCloudInstance(cmd.Context(), streams.Out, access, dataDir, args[0], args[1])
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", dataDir, "the cluster's data directory")
	return cmd
}

// runCloudInstance changes node's machine, then pauses or resumes its
// kubelet to match, and says what to watch for.
func runCloudInstance(ctx context.Context, out io.Writer, access debugAccess, dataDir, action, node string) error {
	if action != "shutdown" && action != "start" && action != "delete" {
		return fmt.Errorf("unknown instance action %q: want shutdown, start or delete", action)
	}
	dc, endpoints, err := access(dataDir)
	if err != nil {
		return err
	}
	cloud, err := cloudEndpoint(endpoints, dataDir)
	if err != nil {
		return err
	}
	kubeletEP, err := kubeletEndpoint(endpoints, node, dataDir)
	if err != nil {
		return err
	}
	var view simulated.InstanceView
	if err := dc.Post(ctx, cloud, simulated.PathInstanceAction+node+"/"+action, struct{}{}, &view); err != nil {
		return err
	}
	pause := action != "start"
	path := kubelet.PathResume
	if pause {
		path = kubelet.PathPause
	}
	var states []kubelet.HeartbeatState
	if err := dc.Post(ctx, kubeletEP, path+"?node="+node, struct{}{}, &states); err != nil {
		return fmt.Errorf("the machine of %s is %s, but its kubelet did not follow: %w", node, view.State, err)
	}
	fmt.Fprintf(out, "instance %s (%s) is %s\n", view.ProviderID, view.Zone, view.State)
	switch action {
	case "shutdown":
		fmt.Fprintf(out, `%[1]s's kubelet stopped with its machine.

Watch for:
  after 50 s without a heartbeat the node-lifecycle controller marks %[1]s NotReady;
  then the cloud-node-lifecycle controller finds the machine shut down and taints
  %[1]s node.cloudprovider.kubernetes.io/shutdown:NoSchedule (the Node stays).
  kubectl get node %[1]s -o jsonpath='{.spec.taints}'
  ctl why node/%[1]s
Undo: ctl cloud instance start %[1]s
`, node)
	case "delete":
		fmt.Fprintf(out, `%[1]s's kubelet stopped with its machine, which is gone for good.

Watch for:
  after 50 s without a heartbeat %[1]s turns NotReady; then the cloud-node-lifecycle
  controller finds no machine and deletes the Node (Event DeletingNode), and the
  node-route controller deletes its route.
  kubectl get nodes -w
  ctl cloud routes
`, node)
	default:
		fmt.Fprintf(out, `%[1]s's kubelet resumed its heartbeat: the node turns Ready again, and the
cloud-node-lifecycle controller removes the shutdown taint.
`, node)
	}
	return nil
}
