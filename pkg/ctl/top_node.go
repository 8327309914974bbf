package ctl

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
)

// topNodeOptions are the flags of `ctl top node`, kubectl top node's.
type topNodeOptions struct {
	f *factory

	name         string
	selector     string
	sortBy       string
	noHeaders    bool
	showCapacity bool
}

// newTopNodeCommand is `ctl top node`.
func newTopNodeCommand(f *factory) *cobra.Command {
	o := &topNodeOptions{f: f}
	cmd := &cobra.Command{
		Use:     "node [NAME | -l label]",
		Aliases: []string{"nodes", "no"},
		Short:   "Display resource (CPU/memory) usage of nodes",
		Long: `top node shows each node's CPU and memory use, and what share of the node's
allocatable CPU and memory that is, from the resource metrics API
(NodeMetrics of metrics.k8s.io/v1beta1). A node metrics-server could not
scrape is shown with <unknown>.`,
		Example: `  ctl top node
  ctl top node node1
  ctl top node --sort-by memory`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError(cmd.CommandPath(), "%s", cmd.Use)
			}
			if len(args) == 1 {
				o.name = args[0]
			}
			return o.run(cmd.Context())
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&o.selector, "selector", "l", "", "only the nodes matching this label selector (app=web, tier in (a,b))")
	flags.StringVar(&o.sortBy, "sort-by", "", "sort by cpu or memory, the largest first (default: by name)")
	flags.BoolVar(&o.noHeaders, "no-headers", false, "leave out the header row")
	flags.BoolVar(&o.showCapacity, "show-capacity", false, "give the percentages of the nodes' capacity instead of their allocatable")
	return cmd
}

// run is `ctl top node`: the checks, requests and messages of kubectl's
// RunTopNode.
func (o *topNodeOptions) run(ctx context.Context) error {
	if err := validateTopSortBy(o.sortBy); err != nil {
		return err
	}
	if o.name != "" && o.selector != "" {
		return errors.New("only one of NAME or --selector can be provided")
	}
	if _, err := labels.Parse(o.selector); err != nil {
		return err
	}
	c, err := o.f.Client()
	if err != nil {
		return err
	}
	available, err := metricsAPIAvailable(ctx, c)
	if err != nil {
		return err
	}
	if !available {
		return errMetricsAPINotAvailable
	}

	metricsClient := client.For[*api.NodeMetrics](c, client.NodeMetricsResource)
	var metrics []api.NodeMetrics
	var nodes []*api.Node
	if o.name != "" {
		m, err := metricsClient.Get(ctx, o.name, client.GetOptions{})
		if err != nil {
			return err
		}
		metrics = append(metrics, *m)
	} else {
		list, err := metricsClient.List(ctx, client.ListOptions{LabelSelector: o.selector})
		if err != nil {
			return err
		}
		for _, m := range list.Items {
			metrics = append(metrics, *m)
		}
	}
	if len(metrics) == 0 {
		return errMetricsNotAvailableYet
	}

	if o.name != "" {
		node, err := c.Nodes().Get(ctx, o.name, client.GetOptions{})
		if err != nil {
			return err
		}
		nodes = append(nodes, node)
	} else {
		list, err := c.Nodes().List(ctx, client.ListOptions{LabelSelector: o.selector})
		if err != nil {
			return err
		}
		nodes = list.Items
	}
	allocatable := make(map[string]api.ResourceList, len(nodes))
	for _, n := range nodes {
		if o.showCapacity {
			allocatable[n.Name] = n.Status.Capacity
		} else {
			allocatable[n.Name] = n.Status.Allocatable
		}
	}
	return printNodeMetrics(o.f.out(), metrics, allocatable, o.noHeaders, o.sortBy)
}
