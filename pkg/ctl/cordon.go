package ctl

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// nodeOptions are the flags cordon, uncordon and drain share.
type nodeOptions struct {
	f          *factory
	selector   string
	dryRunFlag string
}

// addFlags registers the shared flags.
func (o *nodeOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&o.selector, "selector", "l", "", "act on the nodes matching this label selector")
	addDryRunFlag(cmd.Flags(), &o.dryRunFlag)
}

// nodes reads the nodes named, or those matching -l, as kubectl's builder
// does for these verbs (a missing node is an error before anything is done).
func (o *nodeOptions) nodes(ctx context.Context, c *client.Client, cmd *cobra.Command, args []string) ([]*api.Node, error) {
	if len(args) == 0 && o.selector == "" {
		return nil, usageError(cmd.CommandPath(), "USAGE: %s [flags]", cmd.Use)
	}
	if len(args) > 0 && o.selector != "" {
		return nil, usageError(cmd.CommandPath(), "error: cannot specify both a node name and a --selector option")
	}
	if o.selector != "" {
		list, err := c.Nodes().List(ctx, client.ListOptions{LabelSelector: o.selector})
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	}
	var nodes []*api.Node
	for _, name := range args {
		node, err := c.Nodes().Get(ctx, name, client.GetOptions{})
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, node)
	}
	return nodes, nil
}

// setUnschedulable cordons (desired true) or uncordons each node and says
// so: "node/x cordoned", "node/x already cordoned". A node that cannot be
// changed is reported on stderr and the others carry on, as in kubectl's
// RunCordonOrUncordon.
func (o *nodeOptions) setUnschedulable(ctx context.Context, c *client.Client, nodes []*api.Node, desired bool, dryRun dryRunStrategy) {
	verb := "cordon"
	if !desired {
		verb = "uncordon"
	}
	for _, node := range nodes {
		if node.Spec.Unschedulable == desired {
			fmt.Fprintf(o.f.out(), "node/%s already %sed%s\n", node.Name, verb, dryRun.suffix())
			continue
		}
		if dryRun != "client" {
			// The patch kubectl's cordon helper computes: false is the
			// field's zero value, so it is removed rather than set.
			patch := []byte(`{"spec":{"unschedulable":true}}`)
			if !desired {
				patch = []byte(`{"spec":{"unschedulable":null}}`)
			}
			_, err := c.Nodes().Patch(ctx, node.Name, client.StrategicMergePatchType, patch, client.PatchOptions{DryRun: dryRun == "server"})
			if err != nil {
				fmt.Fprintf(o.f.errOut(), "error: unable to %s node %q: %v\n", verb, node.Name, err)
				continue
			}
		}
		fmt.Fprintf(o.f.out(), "node/%s %sed%s\n", node.Name, verb, dryRun.suffix())
	}
}

// newCordonCommand is `ctl cordon`.
func newCordonCommand(f *factory) *cobra.Command {
	return newCordonOrUncordonCommand(f, true)
}

// newUncordonCommand is `ctl uncordon`.
func newUncordonCommand(f *factory) *cobra.Command {
	return newCordonOrUncordonCommand(f, false)
}

// newCordonOrUncordonCommand builds cordon (desired true) or uncordon.
func newCordonOrUncordonCommand(f *factory, desired bool) *cobra.Command {
	o := &nodeOptions{f: f}
	cmd := &cobra.Command{
		Use:   "cordon NODE",
		Short: "Mark node as unschedulable",
		Long: `cordon sets a Node's spec.unschedulable: the scheduler places no new pod
on it (the node lifecycle shows it as SchedulingDisabled), while the pods
already there keep running. ` + "`ctl drain`" + ` cordons and then removes them;
` + "`ctl uncordon`" + ` makes the node schedulable again.`,
		Example:           `  ctl cordon node1`,
		ValidArgsFunction: completeResourceNames(f, "nodes"),
	}
	if !desired {
		cmd.Use = "uncordon NODE"
		cmd.Short = "Mark node as schedulable"
		cmd.Long = `uncordon clears a Node's spec.unschedulable, so the scheduler may place pods
on it again. Pods drained from it do not come back by themselves; new ones
(a ReplicaSet's replacements, a rollout) may land there.`
		cmd.Example = `  ctl uncordon node1`
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		dryRun, err := parseDryRun(o.dryRunFlag)
		if err != nil {
			return err
		}
		c, err := f.Client()
		if err != nil {
			return err
		}
		nodes, err := o.nodes(cmd.Context(), c, cmd, args)
		if err != nil {
			return err
		}
		o.setUnschedulable(cmd.Context(), c, nodes, desired, dryRun)
		return nil
	}
	o.addFlags(cmd)
	return cmd
}
