package podautoscaler

// This file is where the HPA's figures come from, as upstream's
// pkg/controller/podautoscaler/metrics/client.go: the resource metrics API
// (metrics.k8s.io/v1beta1, served by metrics-server through the
// apiserver's aggregator) for Resource and ContainerResource metrics. The
// controller sees only the MetricsClient interface, so its tests hand it a
// fake.
//
// Pods, Object and External metrics come, upstream, from the custom and
// external metrics APIs (custom.metrics.k8s.io, external.metrics.k8s.io),
// which an adapter such as prometheus-adapter serves. kplane has no such
// adapter: those metrics fail with a message that says so, and the HPA's
// ScalingActive condition carries it.

import (
	"context"
	"errors"
	"fmt"

	"kplane/pkg/api"
	"kplane/pkg/client"
)

// MetricsClient reads the figures an HPA scales on.
type MetricsClient interface {
	// ResourceMetric returns the usage of resource by each pod in
	// namespace that selector (label-query syntax) matches — of one
	// container when container is set, else summed over the pod's
	// containers — and the time of the samples.
	ResourceMetric(ctx context.Context, resource api.ResourceName, namespace, selector, container string) (PodMetricsInfo, error)
}

// errNoCustomMetrics is the answer for Pods, Object and External metrics.
var errNoCustomMetrics = errors.New("kplane serves no custom or external metrics API (custom.metrics.k8s.io, external.metrics.k8s.io); only Resource and ContainerResource metrics are supported")

// ResourceMetricsClient reads metrics.k8s.io/v1beta1 PodMetrics through
// the apiserver.
type ResourceMetricsClient struct {
	Client *client.Client
}

// ResourceMetric lists the PodMetrics of the selected pods and sums each
// pod's usage of resource, as upstream's resourceMetricsClient does. A pod
// with a container that lacks the figure is left out (it counts as
// missing); an empty answer is an error.
func (c ResourceMetricsClient) ResourceMetric(ctx context.Context, resource api.ResourceName, namespace, selector, container string) (PodMetricsInfo, error) {
	list, err := client.For[*api.PodMetrics](c.Client, client.PodMetricsResource).Namespace(namespace).
		List(ctx, client.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, fmt.Errorf("unable to fetch metrics from resource metrics API: %w", err)
	}
	if len(list.Items) == 0 {
		return nil, errors.New("no metrics returned from resource metrics API")
	}
	if container != "" {
		info, err := containerMetrics(list.Items, resource, container)
		if err != nil {
			return nil, fmt.Errorf("failed to get container metrics: %w", err)
		}
		return info, nil
	}
	return podMetrics(list.Items, resource), nil
}

// podMetrics sums each pod's containers' usage of resource.
func podMetrics(items []*api.PodMetrics, resource api.ResourceName) PodMetricsInfo {
	info := PodMetricsInfo{}
	for _, m := range items {
		var sum int64
		missing := len(m.Containers) == 0
		for _, c := range m.Containers {
			q, ok := c.Usage[resource]
			if !ok {
				missing = true
				break
			}
			sum += q.MilliValue()
		}
		if !missing {
			info[m.Name] = PodMetric{Timestamp: m.Timestamp.Time, Window: m.Window.Duration, Value: sum}
		}
	}
	return info
}

// containerMetrics takes one container's usage of resource from each pod.
func containerMetrics(items []*api.PodMetrics, resource api.ResourceName, container string) (PodMetricsInfo, error) {
	info := PodMetricsInfo{}
	for _, m := range items {
		for _, c := range m.Containers {
			if c.Name != container {
				continue
			}
			q, ok := c.Usage[resource]
			if !ok {
				return nil, fmt.Errorf("missing resource metric %v for container %s in pod %s/%s", resource, container, m.Namespace, m.Name)
			}
			info[m.Name] = PodMetric{Timestamp: m.Timestamp.Time, Window: m.Window.Duration, Value: q.MilliValue()}
		}
	}
	return info, nil
}
