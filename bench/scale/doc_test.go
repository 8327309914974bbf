//go:build scale

// Package scale is kplane's scale run (`make bench-scale`, never part of
// `make test`): the whole control plane of a `ctl up` cluster as separate
// processes, 1 000 hollow nodes in a few kubelet processes, 30 pods per
// node created at a fixed rate and then 100 000 pods held, as kwok claims
// for its fake nodes and as upstream's density test
// (kubernetes/perf-tests clusterloader2 testing/density) measures its SLOs:
//
//   - pod startup latency, created → Running as the kubelet reported it,
//     seen by a watch opened before the first create (SLO p99 ≤ 5 s);
//   - mutating API call latency, from the apiserver's
//     apiserver_request_duration_seconds histogram read before and after
//     (SLO p99 ≤ 1 s per resource and verb), and the creators' own timings;
//   - at 1 k, 10 k, 30 k and 100 k pods, every process's RSS and the
//     latency of LIST (all pods as full JSON, in pages of 500, one node's
//     pods by field selector);
//   - at 100 k pods, a fresh informer's relist and W7 (a scheduler started
//     with 2 000 pods pending, pods bound per second).
//
// Everything runs in TestScale (scale_test.go); the size comes from the
// KPLANE_SCALE_* variables (size.go) so that a small run can be tried
// first. The report is printed and written to bench/scale-report.txt.
package scale
