// Package kubeproxy is kplane's kube-proxy: one per node, it watches
// Services, EndpointSlices and Nodes through kplane's informers and keeps
// the rules upstream's kube-proxy would program on that node — without
// ever touching the kernel (docs/kube-proxy.md).
//
// The flow mirrors upstream's cmd/kube-proxy/app and pkg/proxy/iptables:
//
//   - informer event handlers only ask for a sync (runner.Run);
//   - the BoundedFrequencyRunner (pkg/proxy/runner) batches those asks:
//     at most one sync per --min-sync-period, at least one per
//     --sync-period;
//   - a sync lists the caches, builds the node's model (pkg/proxy.Build),
//     computes the iptables rules (pkg/proxy/iptables.Compute), keeps them
//     as the current Snapshot, records a decision in the debug journal and
//     updates the metrics;
//   - the HTTP server on --metrics-bind-address answers /metrics,
//     /healthz, /livez and /proxyMode to anyone (as upstream's metrics port
//     does), /proxy/route for the kubelets' simulated shells, and
//     /proxy/rules (the rules in any of the three modes' shapes) and the
//     debug API to cluster administrators.
//
// The nftables and IPVS views are rendered from the same snapshot's model
// when asked, so all three always show the same sync.
package kubeproxy
