package scheduler

import (
	"slices"
	"testing"

	"kplane/pkg/api"
	"kplane/pkg/scheduler/framework"
)

func cacheNode(name string) *api.Node {
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: name}, Status: api.NodeStatus{Allocatable: api.ResourceList{
		api.ResourceCPU: api.MustParseQuantity("4"), api.ResourceMemory: api.MustParseQuantity("8Gi"), api.ResourcePods: api.MustParseQuantity("110"),
	}}}
}

func cachePod(name, node, cpu string) *api.Pod {
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, UID: name + "-uid"},
		Spec:       api.PodSpec{NodeName: node, Containers: []api.Container{{Name: "c"}}},
	}
	if cpu != "" {
		p.Spec.Containers[0].Resources.Requests = api.ResourceList{api.ResourceCPU: api.MustParseQuantity(cpu)}
	}
	return p
}

func requestedCPU(t *testing.T, c *Cache, node string) int64 {
	t.Helper()
	s, ok := c.Summary(node)
	if !ok {
		return -1
	}
	return s.Requested.MilliCPU
}

func nodeNames(c *Cache) []string {
	var names []string
	c.WithNodes(func(nodes []*framework.NodeInfo) {
		for _, n := range nodes {
			names = append(names, n.Name())
		}
	})
	return names
}

func TestCacheAssumeConfirm(t *testing.T) {
	c := NewCache()
	c.AddNode(cacheNode("n1"))
	c.AddNode(cacheNode("n2"))
	p := cachePod("p", "n1", "1")
	if err := c.AssumePod(framework.NewPodInfo(p)); err != nil {
		t.Fatal(err)
	}
	if got := requestedCPU(t, c, "n1"); got != 1000 || !c.IsAssumed(p) {
		t.Fatalf("after assume: n1 requests %dm, assumed %v", got, c.IsAssumed(p))
	}
	if err := c.AssumePod(framework.NewPodInfo(cachePod("p", "n2", "1"))); err == nil {
		t.Fatal("assuming a pod twice must fail")
	}
	c.FinishBinding("p-uid")
	c.AddPod(cachePod("p", "n1", "1")) // the informer reports the binding
	if c.IsAssumed(p) || requestedCPU(t, c, "n1") != 1000 {
		t.Fatalf("after confirm: assumed %v, n1 %dm", c.IsAssumed(p), requestedCPU(t, c, "n1"))
	}
	c.ForgetPod("p-uid") // a confirmed pod is not forgotten
	if requestedCPU(t, c, "n1") != 1000 {
		t.Fatal("ForgetPod removed a confirmed pod")
	}
	c.RemovePod(p)
	if requestedCPU(t, c, "n1") != 0 {
		t.Fatal("RemovePod left the pod counted")
	}
}

func TestCacheForgetAfterFailedBinding(t *testing.T) {
	c := NewCache()
	c.AddNode(cacheNode("n1"))
	p := cachePod("p", "n1", "1")
	if err := c.AssumePod(framework.NewPodInfo(p)); err != nil {
		t.Fatal(err)
	}
	c.ForgetPod("p-uid")
	if requestedCPU(t, c, "n1") != 0 || c.IsAssumed(p) {
		t.Fatal("forgotten pod still counted")
	}
}

func TestCacheConfirmOnAnotherNodeMovesThePod(t *testing.T) {
	c := NewCache()
	c.AddNode(cacheNode("n1"))
	c.AddNode(cacheNode("n2"))
	_ = c.AssumePod(framework.NewPodInfo(cachePod("p", "n1", "1")))
	c.AddPod(cachePod("p", "n2", "1")) // someone else bound it elsewhere
	if requestedCPU(t, c, "n1") != 0 || requestedCPU(t, c, "n2") != 1000 {
		t.Fatalf("n1 %dm, n2 %dm; want 0 and 1000", requestedCPU(t, c, "n1"), requestedCPU(t, c, "n2"))
	}
}

func TestCachePodsBeforeTheirNode(t *testing.T) {
	c := NewCache()
	c.AddPod(cachePod("early", "n1", "500m")) // pod informer ran ahead of the node informer
	if names := nodeNames(c); len(names) != 0 {
		t.Fatalf("nodes offered before any Node arrived: %v", names)
	}
	c.AddNode(cacheNode("n1"))
	c.AddNode(cacheNode("n0"))
	if names := nodeNames(c); !slices.Equal(names, []string{"n0", "n1"}) {
		t.Fatalf("nodes = %v, want [n0 n1]", names)
	}
	if requestedCPU(t, c, "n1") != 500 {
		t.Fatal("the early pod was not counted on its node")
	}
	c.RemoveNode("n1")
	if names := nodeNames(c); !slices.Equal(names, []string{"n0"}) {
		t.Fatalf("nodes after removing n1 = %v", names)
	}
	if requestedCPU(t, c, "n1") != 500 {
		t.Fatal("pods of a removed node must stay counted until they go")
	}
	c.RemovePod(cachePod("early", "n1", ""))
	if _, ok := c.Summary("n1"); ok {
		t.Fatal("an empty NodeInfo without a Node should be dropped")
	}
}

func TestCacheUpdatePodRecounts(t *testing.T) {
	c := NewCache()
	c.AddNode(cacheNode("n1"))
	c.AddPod(cachePod("p", "n1", "1"))
	c.UpdatePod(cachePod("p", "n1", "2"))
	if got := requestedCPU(t, c, "n1"); got != 2000 {
		t.Fatalf("n1 requests %dm, want 2000m", got)
	}
}

// A StatefulSet's new web-0 may be placed while the old web-0 (same name,
// another UID) still terminates on the node: both must count.
func TestCacheCountsPodsByUID(t *testing.T) {
	c := NewCache()
	c.AddNode(cacheNode("n1"))
	old := cachePod("web-0", "n1", "1")
	c.AddPod(old)
	replacement := cachePod("web-0", "n1", "1")
	replacement.UID = "web-0-second-uid"
	if c.IsAssumed(replacement) {
		t.Fatal("the replacement is not assumed")
	}
	if err := c.AssumePod(framework.NewPodInfo(replacement)); err != nil {
		t.Fatal(err)
	}
	if got := requestedCPU(t, c, "n1"); got != 2000 {
		t.Fatalf("n1 requests %dm, want both pods counted (2000m)", got)
	}
	c.RemovePod(old)
	if got := requestedCPU(t, c, "n1"); got != 1000 || !c.IsAssumed(replacement) {
		t.Fatalf("after the old pod left: %dm, assumed %v", got, c.IsAssumed(replacement))
	}
}
