// Package metricsserver is kplane's metrics-server: the add-on that serves
// the resource metrics API, metrics.k8s.io/v1beta1, which `kubectl top` and
// the horizontal pod autoscaler read. It mirrors
// kubernetes-sigs/metrics-server, in four parts:
//
//   - The scraper (scraper.go, kubelet.go, decode.go; upstream's
//     pkg/scraper): every --metric-resolution it asks each Ready node's
//     kubelet for GET /metrics/resource, a few nodes at a time, each with a
//     timeout shorter than the resolution, and decodes the Prometheus text
//     into one point per node and per container: a cumulative CPU counter,
//     the memory working set and the time the kubelet sampled them.
//   - The store (store.go; upstream's pkg/storage): the last two points of
//     every node and container. CPU usage is the rate between them, memory
//     the last working set, and the window the time between the two
//     samples. Something seen once has no rate yet, so it does not appear
//     until its second scrape; a counter that went backwards (a restarted
//     container) starts over.
//   - The API (rest.go, table.go, discovery.go; upstream's pkg/api):
//     NodeMetrics and PodMetrics computed from the store for the nodes and
//     pods the informers know, with label and field selectors and Table
//     output, and the discovery documents of the group.
//   - The server (server.go, auth.go; upstream's pkg/server and the generic
//     apiserver under it): HTTPS on a loopback port with a certificate of
//     the cluster CA. Only clients presenting a certificate of that CA are
//     served; the apiserver's aggregator is one, and it names the user it
//     proxies for in X-Remote-User and X-Remote-Group.
//
// The apiserver reaches it through the APIService v1beta1.metrics.k8s.io
// that `ctl up` creates. docs/metrics-server.md tells the whole story.
package metricsserver
