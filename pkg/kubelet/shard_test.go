package kubelet

import (
	"testing"
	"time"

	"kplane/pkg/api"
)

// TestOnNodesKeepsThePodsOfTheProcesssNodes: a process of hollow nodes
// keeps, of its watch of every bound pod, exactly those bound to one of its
// nodes, so that processes of other nodes' pods never fill its cache.
func TestOnNodesKeepsThePodsOfTheProcesssNodes(t *testing.T) {
	keep := onNodes([]string{"hollow-1-1", "hollow-1-2"})
	for _, tc := range []struct {
		obj  api.Object
		want bool
	}{
		{&api.Pod{Spec: api.PodSpec{NodeName: "hollow-1-1"}}, true},
		{&api.Pod{Spec: api.PodSpec{NodeName: "hollow-1-2"}}, true},
		{&api.Pod{Spec: api.PodSpec{NodeName: "hollow-2-1"}}, false},
		{&api.Pod{Spec: api.PodSpec{NodeName: "hollow-1-10"}}, false},
		{&api.Pod{}, false},
		{&api.Node{ObjectMeta: api.ObjectMeta{Name: "hollow-1-1"}}, false},
	} {
		if got := keep(tc.obj); got != tc.want {
			t.Errorf("onNodes(...)(%T on %q) = %v, want %v", tc.obj, nodeOf(tc.obj), got, tc.want)
		}
	}
}

func nodeOf(obj api.Object) string {
	if pod, ok := obj.(*api.Pod); ok {
		return pod.Spec.NodeName
	}
	return obj.GetObjectMeta().Name
}

// TestStatusPhaseSpreadsAProcesssNodesOverOneInterval: the hollow nodes of
// one process start their node status ticks evenly spread over one
// interval, so their periodic reports never arrive together; a single node
// starts at once.
func TestStatusPhaseSpreadsAProcesssNodesOverOneInterval(t *testing.T) {
	const interval = 10 * time.Second
	for _, tc := range []struct {
		index, count int
		want         time.Duration
	}{
		{0, 0, 0}, // one node, no --node-count
		{0, 1, 0},
		{0, 250, 0},
		{1, 250, 40 * time.Millisecond},
		{125, 250, 5 * time.Second},
		{249, 250, 9960 * time.Millisecond},
	} {
		if got := statusPhase(tc.index, tc.count, interval); got != tc.want {
			t.Errorf("statusPhase(%d, %d, %v) = %v, want %v", tc.index, tc.count, interval, got, tc.want)
		}
	}
}
