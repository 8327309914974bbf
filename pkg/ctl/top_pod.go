package ctl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"kplane/pkg/api"
	"kplane/pkg/api/fields"
	"kplane/pkg/api/labels"
	"kplane/pkg/client"
)

// metricsCreationDelay is how long kubectl top pod gives a new pod to get
// its first metrics before it calls their absence a fault rather than "not
// yet": two minutes, kubectl's figure (metrics-server needs two scrapes of
// a container to compute a CPU rate).
const metricsCreationDelay = 2 * time.Minute

// topPodOptions are the flags of `ctl top pod`, kubectl top pod's.
type topPodOptions struct {
	f *factory

	name          string
	labelSelector string
	fieldSelector string
	sortBy        string
	allNamespaces bool
	containers    bool
	noHeaders     bool
	sum           bool
}

// newTopPodCommand is `ctl top pod`.
func newTopPodCommand(f *factory) *cobra.Command {
	o := &topPodOptions{f: f}
	cmd := &cobra.Command{
		Use:     "pod [NAME | -l label]",
		Aliases: []string{"pods", "po"},
		Short:   "Display resource (CPU/memory) usage of pods",
		Long: `top pod shows each pod's CPU and memory use (the sum of its containers'), or
with --containers each container's, from the resource metrics API (PodMetrics
of metrics.k8s.io/v1beta1).

metrics-server has a pod's figures only after it scraped the pod's node twice
(a CPU rate needs two readings of the cumulative counter), so a new pod has
none for a scrape interval or two.`,
		Example: `  ctl top pod
  ctl top pod -A --sort-by cpu
  ctl top pod -l app=web --sum
  ctl top pod web-0 --containers`,
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
	flags.StringVarP(&o.labelSelector, "selector", "l", "", "only the pods matching this label selector (app=web, tier in (a,b))")
	flags.StringVar(&o.fieldSelector, "field-selector", "", "only the pods matching this field selector (metadata.name=web-0)")
	flags.StringVar(&o.sortBy, "sort-by", "", "sort by cpu or memory, the largest first (default: by name)")
	flags.BoolVar(&o.containers, "containers", false, "one line per container (adds a POD column)")
	flags.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "the pods of every namespace (adds a NAMESPACE column)")
	flags.BoolVar(&o.noHeaders, "no-headers", false, "leave out the header row")
	flags.BoolVar(&o.sum, "sum", false, "print the total CPU and memory under the table")
	return cmd
}

// run is `ctl top pod`: the checks, requests and messages of kubectl's
// RunTopPod.
func (o *topPodOptions) run(ctx context.Context) error {
	if err := validateTopSortBy(o.sortBy); err != nil {
		return err
	}
	if o.name != "" && (o.labelSelector != "" || o.fieldSelector != "") {
		return errors.New("only one of NAME or selector can be provided")
	}
	if _, err := labels.Parse(o.labelSelector); err != nil {
		return err
	}
	if _, err := fields.Parse(o.fieldSelector); err != nil {
		return err
	}
	namespace, _, err := o.f.Namespace()
	if err != nil {
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

	listNamespace := namespace
	if o.allNamespaces {
		listNamespace = ""
	}
	metricsClient := client.For[*api.PodMetrics](c, client.PodMetricsResource).Namespace(listNamespace)
	var metrics []api.PodMetrics
	if o.name != "" {
		m, err := metricsClient.Get(ctx, o.name, client.GetOptions{})
		if err != nil {
			return err
		}
		metrics = append(metrics, *m)
	} else {
		list, err := metricsClient.List(ctx, client.ListOptions{LabelSelector: o.labelSelector, FieldSelector: o.fieldSelector})
		if err != nil {
			return err
		}
		for _, m := range list.Items {
			metrics = append(metrics, *m)
		}
	}

	if len(metrics) == 0 {
		// Nothing measured: either there are no such pods (say so, as
		// `get` does), or they are too new for metrics.
		if err := o.explainNoMetrics(ctx, c, listNamespace); err != nil {
			return err
		}
		if o.allNamespaces {
			fmt.Fprintln(o.f.errOut(), "No resources found")
		} else {
			fmt.Fprintf(o.f.errOut(), "No resources found in %s namespace.\n", namespace)
		}
	}
	return printPodMetrics(o.f.out(), metrics, o.containers, o.allNamespaces, o.noHeaders, o.sortBy, o.sum)
}

// explainNoMetrics is kubectl's verifyEmptyMetrics: nil when no pod
// matches; otherwise "metrics not available yet" while every matching pod
// is younger than metricsCreationDelay, and a message naming the first
// older pod when one is not (metrics-server should have measured it by
// now). Ages are on the cluster clock, which `ctl time advance` moves.
func (o *topPodOptions) explainNoMetrics(ctx context.Context, c *client.Client, namespace string) error {
	var pods []*api.Pod
	if o.name != "" {
		pod, err := c.Pods(namespace).Get(ctx, o.name, client.GetOptions{})
		if err != nil {
			return err
		}
		pods = append(pods, pod)
	} else {
		list, err := c.Pods(namespace).List(ctx, client.ListOptions{LabelSelector: o.labelSelector, FieldSelector: o.fieldSelector})
		if err != nil {
			return err
		}
		if len(list.Items) == 0 {
			return nil
		}
		pods = list.Items
	}
	now := time.Now().Add(clusterOffset(ctx, c))
	for _, pod := range pods {
		if age := now.Sub(pod.CreationTimestamp.Time); age > metricsCreationDelay {
			return fmt.Errorf("Metrics not available for pod %s/%s, age: %s", pod.Namespace, pod.Name, age) //nolint:staticcheck // kubectl's exact words
		}
	}
	return errMetricsNotAvailableYet
}
