package ctl

// `ctl top` is kubectl top (staging/src/k8s.io/kubectl/pkg/cmd/top): it
// reads the resource metrics API, metrics.k8s.io/v1beta1, which
// metrics-server serves through the apiserver's aggregator from what it
// scraped off the kubelets, and prints CPU and memory use per node or per
// pod. The metrics API is not stored anywhere: every NodeMetrics and
// PodMetrics is computed from the latest scrapes when asked for, so a pod
// younger than a scrape or two has none yet.
//
// The requests, the checks and their messages are kubectl 1.33's: first
// discovery (/apis must list metrics.k8s.io with version v1beta1, else
// "Metrics API not available"), then one list or get of NodeMetrics or
// PodMetrics, then the nodes (for the percentages of allocatable) or, when
// no pod has metrics, the pods (to tell "not yet" from "none"). The
// printing is top_print.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"kplane/pkg/client"
)

// The --sort-by values kubectl top accepts: the largest use first.
const (
	topSortByCPU    = "cpu"
	topSortByMemory = "memory"
)

// errMetricsAPINotAvailable is kubectl's answer when discovery does not
// list metrics.k8s.io/v1beta1: no metrics-server, or its APIService is not
// registered.
var errMetricsAPINotAvailable = errors.New("Metrics API not available") //nolint:staticcheck // kubectl's exact words

// errMetricsNotAvailableYet is kubectl's answer when the metrics API is
// served but has nothing for what was asked: metrics-server has not scraped
// it yet.
var errMetricsNotAvailableYet = errors.New("metrics not available yet")

// newTopCommand is `ctl top`, with its two verbs `top node` and `top pod`.
func newTopCommand(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "top",
		Short: "Display resource (CPU/memory) usage",
		Long: `top shows how much CPU and memory the nodes or the pods use, as kubectl top
does: it reads the resource metrics API, metrics.k8s.io/v1beta1, which
metrics-server serves (through the apiserver's aggregator) from what it
scrapes off every kubelet's /metrics/resource, every 15 s by default.

On kplane's simulated nodes a pod's usage follows its sim.kplane.io/cpu and
sim.kplane.io/memory annotations (ctl load sets them); a node's is the sum of
its pods' plus a base.`,
		Example: `  ctl top node
  ctl top pod
  ctl top pod -A --sort-by cpu
  ctl top pod web-0 --containers`,
		RunE: func(cmd *cobra.Command, args []string) error {
			// As kubectl: the bare verb prints its help.
			return cmd.Help()
		},
	}
	cmd.AddCommand(newTopNodeCommand(f))
	cmd.AddCommand(newTopPodCommand(f))
	return cmd
}

// validateTopSortBy checks --sort-by, with kubectl's message.
func validateTopSortBy(sortBy string) error {
	if sortBy != "" && sortBy != topSortByCPU && sortBy != topSortByMemory {
		return errors.New("--sort-by accepts only cpu or memory")
	}
	return nil
}

// metricsAPIAvailable reads the server's API groups (/apis) and reports
// whether metrics.k8s.io serves v1beta1, the only version kubectl top
// reads. The aggregator lists the group only while metrics-server's
// APIService is registered.
func metricsAPIAvailable(ctx context.Context, c *client.Client) (bool, error) {
	_, body, err := c.Do(ctx, "GET", "/apis", nil, map[string]string{"Accept": "application/json"})
	if err != nil {
		return false, err
	}
	var groups struct {
		Groups []struct {
			Name     string `json:"name"`
			Versions []struct {
				Version string `json:"version"`
			} `json:"versions"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(body, &groups); err != nil {
		return false, fmt.Errorf("decode /apis: %w", err)
	}
	for _, g := range groups.Groups {
		if g.Name != client.NodeMetricsResource.Group {
			continue
		}
		for _, v := range g.Versions {
			if v.Version == client.NodeMetricsResource.Version {
				return true, nil
			}
		}
	}
	return false, nil
}
