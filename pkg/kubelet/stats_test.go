package kubelet_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/kubelet"
	"kplane/pkg/kubelet/simload"
	"kplane/pkg/kubelet/stats"
	"kplane/test/framework"
)

// TestSummaryFollowsTheLoadModel runs a pod of two containers at 300m on a
// fake clock and reads the node's Summary as the server would: the
// counters grow exactly by rate × elapsed fake time, the node is the pod
// plus the base, and an annotation-only change of the running pod (what
// `kubectl annotate` or `ctl load` makes) reaches the containers and
// counts from then on.
func TestSummaryFollowsTheLoadModel(t *testing.T) {
	cl := startCluster(t)
	opts, fake := cl.onFakeClock("node1")
	finder := make(chan kubelet.ContainerFinder, 1)
	opts.Server = func(_ context.Context, env kubelet.ServerEnv) (int32, error) {
		finder <- env.Containers
		return 0, nil
	}
	startKubelet(t, opts)
	nodes := <-finder
	waitNodesReady(t, cl, 1)

	pod := simplePod("web", api.RestartPolicyAlways, map[string]string{
		simload.CPUAnnotation: "300m", simload.MemoryAnnotation: "200Mi", simload.MemoryAnnotation + ".side": "50Mi",
		simload.NoiseAnnotation: "0"})
	pod.Spec.Containers = append(pod.Spec.Containers, api.Container{Name: "side", Image: "busybox"})
	cl.createBoundPod(t, pod, "node1")
	cl.waitPod(t, "web", func(p *api.Pod) bool { return p.Status.Phase == api.PodRunning })

	summaryOf := func() *stats.Summary {
		t.Helper()
		s, err := nodes.Summary("whatever: one node answers for itself")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := summaryOf()
	if len(first.Pods) != 1 || len(first.Pods[0].Containers) != 2 {
		t.Fatalf("summary pods = %+v, want web with 2 containers", first.Pods)
	}
	fake.Step(time.Minute)
	s := summaryOf()
	p := s.Pods[0]
	if p.PodRef.Name != "web" || p.PodRef.Namespace != "default" || p.PodRef.UID == "" {
		t.Errorf("podRef = %+v", p.PodRef)
	}
	app, side := p.Containers[0], p.Containers[1]
	if app.Name != "app" || *app.CPU.UsageNanoCores != 300e6 || *app.CPU.UsageCoreNanoSeconds != 18e9 ||
		*app.Memory.WorkingSetBytes != 200<<20 || !app.CPU.Time.Equal(fake.Now()) {
		t.Errorf("app after a minute at 300m: cpu %d nanocores, %d core-ns at %v; memory %d",
			*app.CPU.UsageNanoCores, *app.CPU.UsageCoreNanoSeconds, app.CPU.Time, *app.Memory.WorkingSetBytes)
	}
	if *side.Memory.WorkingSetBytes != 50<<20 {
		t.Errorf("side's memory = %d, want its own 50Mi", *side.Memory.WorkingSetBytes)
	}
	if *p.CPU.UsageNanoCores != 600e6 || *p.CPU.UsageCoreNanoSeconds != 36e9 || *p.Memory.WorkingSetBytes != 250<<20 {
		t.Errorf("pod = %d nanocores, %d core-ns, %d bytes; want the sum of its containers",
			*p.CPU.UsageNanoCores, *p.CPU.UsageCoreNanoSeconds, *p.Memory.WorkingSetBytes)
	}
	wantCPU, wantMemory := simload.NodeUsage(600e6, 250<<20)
	if s.Node.NodeName != "node1" || *s.Node.CPU.UsageNanoCores != wantCPU || *s.Node.Memory.WorkingSetBytes != wantMemory {
		t.Errorf("node = %s %d nanocores %d bytes, want %d and %d", s.Node.NodeName,
			*s.Node.CPU.UsageNanoCores, *s.Node.Memory.WorkingSetBytes, wantCPU, wantMemory)
	}
	// Over the minute the node counted its pod's 36 core-seconds and its
	// base's 6 (100m × 60 s).
	if grown := *s.Node.CPU.UsageCoreNanoSeconds - *first.Node.CPU.UsageCoreNanoSeconds; grown != 42e9 {
		t.Errorf("node counter grew %d core-ns over the minute, want 42 core-seconds", grown)
	}

	// Between two samples off a whole millisecond, the node's counter grows
	// by exactly rate × the difference of its (millisecond) timestamps, the
	// rate metrics-server computes: 700m, not a hair more.
	fake.Step(15*time.Second + 400*time.Microsecond)
	a := summaryOf()
	fake.Step(15*time.Second + 300*time.Microsecond)
	b := summaryOf()
	elapsed := uint64(b.Node.CPU.Time.Time.Sub(a.Node.CPU.Time.Time))
	if grown := *b.Node.CPU.UsageCoreNanoSeconds - *a.Node.CPU.UsageCoreNanoSeconds; grown != 700*elapsed/1000 {
		t.Errorf("node counter grew %d core-ns over %v, want 700m × that = %d", grown, time.Duration(elapsed), 700*elapsed/1000)
	}

	// Raise the load with an annotation only; it takes effect live.
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"1"}}}`, simload.CPUAnnotation)
	if _, err := cl.client.Pods("default").Patch(context.Background(), "web", client.MergePatchType, []byte(patch), client.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 10*time.Second, func() (bool, string) {
		rate := *summaryOf().Pods[0].Containers[0].CPU.UsageNanoCores
		return rate == 1e9, fmt.Sprintf("app's rate %d nanocores, want 1 core", rate)
	})
	before := *summaryOf().Pods[0].Containers[0].CPU.UsageCoreNanoSeconds
	fake.Step(10 * time.Second)
	if after := *summaryOf().Pods[0].Containers[0].CPU.UsageCoreNanoSeconds; after-before != 10e9 {
		t.Errorf("10 s at 1 core added %d core-ns, want 10 core-seconds", after-before)
	}
}

// TestSummaryOfHollowNodes: a process with many nodes serves them on one
// port, so a Summary is asked for by node name, and a name the process
// does not run is a 404 that says how to ask.
func TestSummaryOfHollowNodes(t *testing.T) {
	cl := startCluster(t)
	opts, fake := cl.onFakeClock("")
	opts.NodeName, opts.NodeCount, opts.NodeNamePrefix = "", 2, "hollow-"
	finder := make(chan kubelet.ContainerFinder, 1)
	opts.Server = func(_ context.Context, env kubelet.ServerEnv) (int32, error) {
		finder <- env.Containers
		return 0, nil
	}
	startKubelet(t, opts)
	nodes := <-finder
	waitNodesReady(t, cl, 2)
	s, err := nodes.Summary("hollow-2")
	if err != nil || s.Node.NodeName != "hollow-2" || len(s.Pods) != 0 {
		t.Fatalf("Summary(hollow-2) = %+v, %v", s, err)
	}
	wantCPU, _ := simload.NodeUsage(0, 0)
	if *s.Node.CPU.UsageNanoCores != wantCPU {
		t.Errorf("an empty node uses %d nanocores, want the base %d", *s.Node.CPU.UsageNanoCores, wantCPU)
	}
	fake.Step(time.Minute)
	s, _ = nodes.Summary("hollow-2")
	if *s.Node.CPU.UsageCoreNanoSeconds != 6e9 {
		t.Errorf("an empty node's counter after a minute = %d core-ns, want the base's 6 core-seconds", *s.Node.CPU.UsageCoreNanoSeconds)
	}
	_, err = nodes.Summary("127.0.0.1")
	if !kubelet.IsContainerLookupNotFound(err) || err.Error() != `node "127.0.0.1" is not one of this kubelet's 2 nodes; name the node in the request's Host header` {
		t.Errorf("Summary of an unknown node: %v", err)
	}
}
