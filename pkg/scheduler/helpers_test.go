package scheduler_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/scheduler"
	"kplane/test/framework"
)

// These helpers drive a real in-process apiserver. Nodes are created
// directly as API objects with status.allocatable and a Ready condition:
// the scheduler only reads Node objects, so no kubelet is needed.

const waitTimeout = 30 * time.Second

func newClient(t testing.TB, a *framework.APIServer) *client.Client {
	t.Helper()
	return a.Client(t, func(cfg *client.Config) { cfg.UserAgent = "scheduler-test" })
}

// nodeSpec describes a test node.
type nodeSpec struct {
	name          string
	cpu, memory   string
	pods          string
	labels        map[string]string
	taints        []api.Taint
	unschedulable bool
}

func makeNode(s nodeSpec) *api.Node {
	if s.cpu == "" {
		s.cpu = "4"
	}
	if s.memory == "" {
		s.memory = "8Gi"
	}
	if s.pods == "" {
		s.pods = "110"
	}
	resources := api.ResourceList{
		api.ResourceCPU:    api.MustParseQuantity(s.cpu),
		api.ResourceMemory: api.MustParseQuantity(s.memory),
		api.ResourcePods:   api.MustParseQuantity(s.pods),
	}
	labels := map[string]string{"kubernetes.io/hostname": s.name}
	for k, v := range s.labels {
		labels[k] = v
	}
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: s.name, Labels: labels},
		Spec:       api.NodeSpec{Taints: s.taints, Unschedulable: s.unschedulable},
		Status: api.NodeStatus{
			Capacity:    resources,
			Allocatable: resources,
			Conditions:  []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue, Reason: "KubeletReady"}},
		},
	}
}

// createNodes creates the nodes and makes sure their status was stored.
func createNodes(t testing.TB, c *client.Client, specs ...nodeSpec) {
	t.Helper()
	ctx := context.Background()
	for _, s := range specs {
		node := makeNode(s)
		created, err := c.Nodes().Create(ctx, node, client.CreateOptions{})
		if err != nil {
			t.Fatalf("create node %s: %v", s.name, err)
		}
		if len(created.Status.Allocatable) == 0 {
			created.Status = node.Status
			if _, err := c.Nodes().UpdateStatus(ctx, created, client.UpdateOptions{}); err != nil {
				t.Fatalf("update node %s status: %v", s.name, err)
			}
		}
	}
}

func makePod(name string, mutate ...func(*api.Pod)) *api.Pod {
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
	}
	for _, m := range mutate {
		m(pod)
	}
	return pod
}

func withRequests(cpu, memory string) func(*api.Pod) {
	return func(p *api.Pod) {
		r := api.ResourceList{}
		if cpu != "" {
			r[api.ResourceCPU] = api.MustParseQuantity(cpu)
		}
		if memory != "" {
			r[api.ResourceMemory] = api.MustParseQuantity(memory)
		}
		p.Spec.Containers[0].Resources.Requests = r
	}
}

func withHostPort(port int32) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 80, HostPort: port}}
	}
}

func withSchedulerName(name string) func(*api.Pod) {
	return func(p *api.Pod) { p.Spec.SchedulerName = name }
}

func createPods(t testing.TB, c *client.Client, pods ...*api.Pod) {
	t.Helper()
	for _, p := range pods {
		if _, err := c.Pods(p.Namespace).Create(context.Background(), p, client.CreateOptions{}); err != nil {
			t.Fatalf("create pod %s: %v", p.Name, err)
		}
	}
}

// logBuffer collects a scheduler's log lines for assertions.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testLogger logs to out, and also to stderr when KPLANE_TEST_LOGS is set.
func testLogger(out io.Writer) *slog.Logger {
	if os.Getenv("KPLANE_TEST_LOGS") != "" {
		out = io.MultiWriter(out, os.Stderr)
	}
	return slog.New(slog.NewTextHandler(out, nil))
}

// startScheduler runs a scheduler against a until the test ends and
// returns its log.
func startScheduler(t testing.TB, a *framework.APIServer, configure func(*scheduler.Options)) (*logBuffer, context.CancelFunc) {
	t.Helper()
	opts := scheduler.DefaultOptions()
	opts.Kubeconfig = a.KubeconfigPath()
	opts.Verbosity = 2
	logs := &logBuffer{}
	opts.Logger = testLogger(logs)
	if configure != nil {
		configure(&opts)
	}
	s, err := scheduler.New(opts)
	if err != nil {
		t.Fatalf("scheduler.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("scheduler.Run: %v", err)
				}
			case <-time.After(waitTimeout):
				t.Errorf("scheduler did not stop within %v", waitTimeout)
			}
		})
	}
	t.Cleanup(stop)
	return logs, stop
}

// podNodes returns each pod's spec.nodeName in the default namespace.
func podNodes(t testing.TB, c *client.Client) map[string]string {
	t.Helper()
	list, err := c.Pods("default").List(context.Background(), client.ListOptions{})
	if err != nil {
		t.Fatalf("list pods: %v", err)
	}
	out := map[string]string{}
	for _, p := range list.Items {
		out[p.Name] = p.Spec.NodeName
	}
	return out
}

// waitBound waits until every named pod is bound and returns their nodes.
func waitBound(t testing.TB, c *client.Client, names ...string) map[string]string {
	t.Helper()
	var nodes map[string]string
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		nodes = podNodes(t, c)
		var unbound []string
		for _, n := range names {
			if nodes[n] == "" {
				unbound = append(unbound, n)
			}
		}
		return len(unbound) == 0, fmt.Sprintf("unbound pods: %v", unbound)
	})
	return nodes
}

// podEvents lists the events about one pod with the given reason.
func podEvents(t testing.TB, c *client.Client, pod, reason string) []*api.Event {
	t.Helper()
	list, err := c.Events("default").List(context.Background(), client.ListOptions{})
	if err != nil {
		t.Fatalf("list events: %v", err)
	}
	var out []*api.Event
	for _, e := range list.Items {
		if e.InvolvedObject.Name == pod && e.Reason == reason {
			out = append(out, e)
		}
	}
	return out
}

// waitEvent waits for an event about pod with reason and returns it.
func waitEvent(t testing.TB, c *client.Client, pod, reason string) *api.Event {
	t.Helper()
	var ev *api.Event
	framework.Eventually(t, waitTimeout, func() (bool, string) {
		evs := podEvents(t, c, pod, reason)
		if len(evs) == 0 {
			return false, "no " + reason + " event for " + pod
		}
		ev = evs[0]
		return true, ""
	})
	return ev
}

// countPerNode counts pods per node.
func countPerNode(nodes map[string]string) map[string]int {
	counts := map[string]int{}
	for _, n := range nodes {
		counts[n]++
	}
	return counts
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func podScheduledCondition(t testing.TB, c *client.Client, name string) *api.PodCondition {
	t.Helper()
	pod, err := c.Pods("default").Get(context.Background(), name, client.GetOptions{})
	if err != nil {
		t.Fatalf("get pod %s: %v", name, err)
	}
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == api.PodScheduled {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

func containsLine(log, substr string) int {
	return strings.Count(log, substr)
}
