//go:build scale

package scale

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// size is the shape of one scale run. The defaults are the issue's: 1 000
// hollow nodes in 4 kubelet processes, 30 pods per node (30 000) created at
// 100 pods/s, then 100 000 pods in all, W7 with 2 000 pending pods.
type size struct {
	// nodes hollow nodes run in kubelets processes of nodes/kubelets each.
	nodes, kubelets int
	// startupPods are created at createQPS and timed from create to
	// Running (the SLO part); totalPods is what the run grows to after.
	startupPods, totalPods int
	createQPS              float64
	// w7Pods are created pending for the W7 scheduler at full size.
	w7Pods int
	// curve lists the pod counts at which RSS and LIST latency are sampled.
	curve []int
	// timeout bounds the whole run; past it the test fails loudly.
	timeout time.Duration
}

// sizeFromEnv reads KPLANE_SCALE_NODES, _KUBELETS, _STARTUP_PODS,
// _TOTAL_PODS, _QPS, _W7_PODS and _TIMEOUT over the defaults. The curve
// keeps its points of 1 k, 10 k and 30 k pods that are below the startup
// count, then the startup count and the total.
func sizeFromEnv() (size, error) {
	s := size{nodes: 1000, kubelets: 4, startupPods: 30000, totalPods: 100000, createQPS: 100, w7Pods: 2000, timeout: 35 * time.Minute}
	for name, into := range map[string]*int{"NODES": &s.nodes, "KUBELETS": &s.kubelets, "STARTUP_PODS": &s.startupPods,
		"TOTAL_PODS": &s.totalPods, "W7_PODS": &s.w7Pods} {
		if v := os.Getenv("KPLANE_SCALE_" + name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return s, fmt.Errorf("KPLANE_SCALE_%s=%q: want a count", name, v)
			}
			*into = n
		}
	}
	if v := os.Getenv("KPLANE_SCALE_QPS"); v != "" {
		q, err := strconv.ParseFloat(v, 64)
		if err != nil || q <= 0 {
			return s, fmt.Errorf("KPLANE_SCALE_QPS=%q: want a positive rate", v)
		}
		s.createQPS = q
	}
	if v := os.Getenv("KPLANE_SCALE_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return s, fmt.Errorf("KPLANE_SCALE_TIMEOUT=%q: %w", v, err)
		}
		s.timeout = d
	}
	if s.nodes < 1 || s.kubelets < 1 || s.kubelets > s.nodes || s.startupPods < 1 || s.totalPods < s.startupPods {
		return s, fmt.Errorf("scale run of %d nodes in %d kubelets, %d then %d pods: want 1 ≤ kubelets ≤ nodes and startup ≤ total pods",
			s.nodes, s.kubelets, s.startupPods, s.totalPods)
	}
	for _, n := range []int{1000, 10000} {
		if n < s.startupPods {
			s.curve = append(s.curve, n)
		}
	}
	s.curve = append(s.curve, s.startupPods)
	if s.totalPods > s.startupPods {
		s.curve = append(s.curve, s.totalPods)
	}
	return s, nil
}
