// Package simulated is kplane's cloud: the cloud provider "kplane", which
// answers the cloud-controller-manager's questions from memory instead of a
// cloud's API, so that the cloud controllers can be watched at work on a
// laptop. It plays the part a real provider (cloud-provider-aws, -gcp, or
// kind's cloud-provider-kind) plays upstream, behind the same
// cloudprovider.Interface.
//
// What it simulates:
//
//   - Load balancers (loadbalancer.go): one per Service of type
//     LoadBalancer, named as upstream names them ("a" + the Service's UID),
//     with an address from a pool (--load-balancer-ip-range, by default
//     198.51.100.0/24, TEST-NET-2, a range reserved for documentation). The
//     addresses are labels: nothing listens on them and nothing in kplane
//     ever dials them. spec.loadBalancerIP asks for one address of the
//     pool; the lowest free address is given otherwise. A deleted load
//     balancer's address goes back to the pool.
//   - Machines (instances.go): every node has one, with providerID
//     kplane://<node>, instance type kplane.small, region kplane-local and a
//     zone kplane-local-a, -b or -c by the number ending the node's name
//     (control-plane a, node1 b, node2 c, node3 a; see zoneFor). `ctl cloud instance
//     shutdown|start|delete` changes a machine's state through the debug
//     API (debugapi.go), for the lifecycle lessons.
//   - Routes (routes.go): a table of pod range → node, which the route
//     controller fills; packets follow no such table in kplane.
//
// The state lives in memory only. A restarted cloud-controller-manager
// rebuilds it from the cluster: RestoreLoadBalancers takes the addresses back
// from the Services' status before the service controller starts, the route
// controller recreates the routes from the nodes' pod ranges, and every
// machine starts again as running.
package simulated
