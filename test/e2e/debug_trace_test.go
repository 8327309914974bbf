package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kplane/pkg/api"
	"kplane/pkg/client"
	"kplane/pkg/debug"
	"kplane/test/framework"
)

// traceDeployment is the Deployment `ctl trace` follows: three replicas.
const traceDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: trace
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx
`

// TestCtlTraceFollowsADeploymentToRunningPods is issue 13's first
// Done-when: `ctl trace deploy/web`, started before `kubectl apply` of a
// 3-replica Deployment, prints in order the apiserver's write of the
// Deployment and its fan-out, the deployment controller's enqueue, sync and
// decision, its ReplicaSet create, the replicaset controller's pod creates,
// each pod's binding by the scheduler (and the apiserver's write of it) and
// each pod's Running status from its kubelet; and every resourceVersion it
// prints for a write is one the API returned for that object (the apply's
// answer, or a watch event).
func TestCtlTraceFollowsADeploymentToRunningPods(t *testing.T) {
	t.Parallel()
	bin := requireControllerManager(t)
	c := framework.StartCluster(t, nil)
	apiClient := c.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	waitForDebugEndpoints(t, c.Dir, "apiserver", "controller-manager", "scheduler", "kubelet-node1", "kubelet-node2")
	c.MustKubectl(t, "create", "namespace", "trace")

	// Every resourceVersion the API hands out for the namespace's
	// Deployments, ReplicaSets and Pods, by resource and key.
	seen := watchResourceVersions(t, ctx, apiClient, "trace")

	trace := startCtlTrace(t, bin, c, "deploy/web", "-n", "trace", "-o", "json", "--timeout", "2m")
	applied := c.Kubectl(t, traceDeployment, "apply", "-f", "-", "-o", "json")
	if applied.Err != nil {
		t.Fatalf("kubectl apply: %v\n%s", applied.Err, applied.Stderr)
	}
	var deployment api.Deployment
	if err := json.Unmarshal([]byte(applied.Stdout), &deployment); err != nil {
		t.Fatalf("kubectl apply -o json printed %q: %v", applied.Stdout, err)
	}

	// The trace has what it should once each pod's kubelet reported it
	// Running with its container ready; then Ctrl-C ends it.
	var records []debug.Record
	framework.Eventually(t, 90*time.Second, func() (bool, string) {
		records = trace.records(t)
		running := map[string]bool{}
		for _, r := range records {
			if strings.HasPrefix(r.Component, "kubelet-") && r.Stage == "status" && r.Message == "phase Running, ready 1/1" {
				running[r.Key] = true
			}
		}
		return len(running) == 3, fmt.Sprintf("%d records, Running status writes of %v", len(records), running)
	})
	records = trace.interrupt(t)

	order := traceOrder{t: t, records: records}
	deploymentCreate := order.find("the apiserver's write of the Deployment", func(r debug.Record) bool {
		return r.Component == "apiserver" && r.Type == debug.TypeWrite && r.Stage == "create" && r.Resource == "deployments.apps" && r.Key == "trace/web"
	})
	if r := records[max(deploymentCreate, 0)]; deploymentCreate != notFound &&
		(r.ResourceVersion != deployment.ResourceVersion || r.UID != deployment.UID || r.Actor != "kubernetes-admin") {
		t.Errorf("the apiserver's write of the Deployment is %+v; want rv %s and uid %s (kubectl apply's answer) by kubernetes-admin",
			r, deployment.ResourceVersion, deployment.UID)
	}
	order.findAfter(deploymentCreate, "the watch cache's fan-out of the Deployment to the controller-manager's watch", func(r debug.Record) bool {
		return r.Component == "apiserver" && r.Stage == "fanout" && r.Key == "trace/web" && r.ResourceVersion == deployment.ResourceVersion &&
			r.Field("type") == "ADDED" && r.Field("watchers") != "0"
	})
	enqueue := order.findAfter(deploymentCreate, "the deployment controller's enqueue", func(r debug.Record) bool {
		return r.Component == "controller-manager" && r.Stage == "enqueue" && r.Actor == "deployment" && r.Key == "trace/web"
	})
	order.findAfter(enqueue, "the deployment controller's sync", func(r debug.Record) bool {
		return r.Component == "controller-manager" && r.Stage == debug.StageSync && r.Actor == "deployment" && r.Key == "trace/web"
	})
	// The decision is recorded as the sync ends, after the writes it
	// decided (which are dated when they were sent).
	order.findAfter(enqueue, "the deployment controller's decision", func(r debug.Record) bool {
		return r.Component == "controller-manager" && r.Type == debug.TypeDecision && r.Actor == "deployment" &&
			r.Resource == "deployments.apps" && r.Key == "trace/web" && r.UID == deployment.UID
	})
	replicaSetCreate := order.findAfter(enqueue, "the deployment controller's ReplicaSet create", func(r debug.Record) bool {
		return r.Component == "controller-manager" && r.Type == debug.TypeWrite && r.Stage == "create" && r.Actor == "deployment" &&
			r.Resource == "replicasets.apps" && len(r.Owners) == 1 && r.Owners[0] == deployment.UID
	})
	replicaSetUID := ""
	if replicaSetCreate != notFound {
		replicaSetUID = records[replicaSetCreate].UID
	}
	podCreates := order.findAllAfter(replicaSetCreate, "the replicaset controller's pod creates", 3, func(r debug.Record) bool {
		return r.Component == "controller-manager" && r.Type == debug.TypeWrite && r.Stage == "create" && r.Actor == "replicaset" &&
			r.Resource == "pods" && len(r.Owners) == 1 && r.Owners[0] == replicaSetUID
	})
	for _, create := range podCreates {
		pod := records[create].Key
		bind := order.findAfter(create, "the scheduler's binding of "+pod, func(r debug.Record) bool {
			return r.Component == "scheduler" && r.Type == debug.TypeWrite && r.Stage == "bind" && r.Key == pod
		})
		// The binding's answer is a Status: the apiserver's record of it
		// gives the revision it produced.
		order.findAfter(bind, "the apiserver's write of the binding of "+pod, func(r debug.Record) bool {
			return r.Component == "apiserver" && r.Type == debug.TypeWrite && r.Stage == "bind" && r.Key == pod &&
				r.Actor == "system:kube-scheduler" && r.ResourceVersion != ""
		})
		order.findAfter(bind, "the kubelet's Running status of "+pod, func(r debug.Record) bool {
			return strings.HasPrefix(r.Component, "kubelet-") && r.Type == debug.TypeWrite && r.Stage == "status" && r.Key == pod &&
				r.Message == "phase Running, ready 1/1" && r.ResourceVersion != ""
		})
	}
	if t.Failed() {
		t.Logf("the trace:\n%s", formatRecords(records))
		return
	}

	// Every resourceVersion printed for a write is one the API returned
	// for that object.
	for _, r := range records {
		if r.Type != debug.TypeWrite || r.ResourceVersion == "" {
			continue
		}
		ref := r.Resource + " " + r.Key
		framework.Eventually(t, 10*time.Second, func() (bool, string) {
			return seen.has(ref, r.ResourceVersion), fmt.Sprintf("%s's %s write printed resourceVersion %s; the API returned %s at %v",
				r.Component, r.Stage, r.ResourceVersion, ref, seen.versions(ref))
		})
	}
}

// waitForDebugEndpoints waits until each component has announced its
// debug API in dataDir.
func waitForDebugEndpoints(t *testing.T, dataDir string, components ...string) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		endpoints, err := debug.ReadEndpoints(dataDir)
		if err != nil {
			return false, err.Error()
		}
		have := map[string]bool{}
		for _, ep := range endpoints {
			have[ep.Component] = true
		}
		for _, c := range components {
			if !have[c] {
				return false, fmt.Sprintf("endpoints %v, want %v", endpoints, components)
			}
		}
		return true, ""
	})
}

// ctlTrace is a running `ctl trace`.
type ctlTrace struct {
	cmd    *exec.Cmd
	stdout *framework.SyncBuffer
	stderr *framework.SyncBuffer
	done   chan error
}

// startCtlTrace starts `ctl trace args…` against c and returns once it
// has said that every component's stream has its start: from then on, it
// misses nothing.
func startCtlTrace(t *testing.T, bin string, c *framework.LocalCluster, args ...string) *ctlTrace {
	t.Helper()
	tr := &ctlTrace{stdout: &framework.SyncBuffer{}, stderr: &framework.SyncBuffer{}, done: make(chan error, 1)}
	tr.cmd = exec.Command(filepath.Join(bin, "ctl"), append([]string{"trace", "--kubeconfig", c.KubeconfigPath(), "--data-dir", c.Dir}, args...)...)
	tr.cmd.Stdout, tr.cmd.Stderr = tr.stdout, tr.stderr
	if err := tr.cmd.Start(); err != nil {
		t.Fatalf("start ctl trace: %v", err)
	}
	go func() { tr.done <- tr.cmd.Wait() }()
	t.Cleanup(func() {
		if tr.cmd.ProcessState == nil {
			_ = tr.cmd.Process.Kill()
		}
	})
	framework.Eventually(t, 30*time.Second, func() (bool, string) {
		return strings.Contains(tr.stderr.String(), "Ctrl-C stops."), "ctl trace printed on stderr: " + tr.stderr.String()
	})
	return tr
}

// records decodes what the trace has printed so far.
func (tr *ctlTrace) records(t *testing.T) []debug.Record {
	t.Helper()
	var out []debug.Record
	text := tr.stdout.String()
	// The last line may still be on its way.
	lines := strings.Split(text, "\n")
	for _, line := range lines[:len(lines)-1] {
		var r debug.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("ctl trace -o json printed %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

// interrupt ends the trace as Ctrl-C does and returns everything it
// printed; it must exit 0.
func (tr *ctlTrace) interrupt(t *testing.T) []debug.Record {
	t.Helper()
	if err := tr.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("interrupt ctl trace: %v", err)
	}
	select {
	case err := <-tr.done:
		if err != nil {
			t.Fatalf("ctl trace ended with %v after Ctrl-C; stderr:\n%s", err, tr.stderr.String())
		}
	case <-time.After(10 * time.Second):
		_ = tr.cmd.Process.Signal(syscall.SIGKILL)
		t.Fatalf("ctl trace did not end within 10s of Ctrl-C")
	}
	return tr.records(t)
}

// traceOrder finds records in a trace and checks their order.
type traceOrder struct {
	t       *testing.T
	records []debug.Record
}

// notFound is what the finders return for a record the trace lacks (the
// test has failed then); searches after it are skipped, so one missing
// step is reported once.
const notFound = -2

// find returns the index of the first record matching.
func (o traceOrder) find(what string, match func(debug.Record) bool) int {
	o.t.Helper()
	return o.findAfter(-1, what, match)
}

// findAfter returns the index of the first record after index after that
// matches. A match only before it is reported as out of order.
func (o traceOrder) findAfter(after int, what string, match func(debug.Record) bool) int {
	o.t.Helper()
	if after == notFound {
		return notFound
	}
	for i := after + 1; i < len(o.records); i++ {
		if match(o.records[i]) {
			return i
		}
	}
	for i := 0; i <= after; i++ {
		if match(o.records[i]) {
			o.t.Errorf("%s is line %d of the trace, before line %d that it must follow", what, i+1, after+1)
			return notFound
		}
	}
	o.t.Errorf("the trace has no %s", what)
	return notFound
}

// findAllAfter returns the indexes of the first n records after index
// after that match.
func (o traceOrder) findAllAfter(after int, what string, n int, match func(debug.Record) bool) []int {
	o.t.Helper()
	if after == notFound {
		return nil
	}
	var found []int
	for i := after + 1; i < len(o.records) && len(found) < n; i++ {
		if match(o.records[i]) {
			found = append(found, i)
		}
	}
	if len(found) != n {
		o.t.Errorf("the trace has %d of %s after line %d, want %d", len(found), what, after+1, n)
	}
	return found
}

// formatRecords prints records one per line, for a failure's log.
func formatRecords(records []debug.Record) string {
	var b strings.Builder
	for i, r := range records {
		fmt.Fprintf(&b, "%3d %s %-18s %-8s %-8s %-18s %s %s rv=%s %s %s\n", i+1, r.Time.Format("15:04:05.000"), r.Component, r.Type, r.Stage, r.Actor,
			r.Resource, r.Key, r.ResourceVersion, r.Message, r.Detail)
	}
	return b.String()
}

// resourceVersionLog is every resourceVersion the API returned, per
// "resource key".
type resourceVersionLog struct {
	mu   sync.Mutex
	seen map[string]map[string]bool
}

func (l *resourceVersionLog) add(ref, rv string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen[ref] == nil {
		l.seen[ref] = map[string]bool{}
	}
	l.seen[ref][rv] = true
}

func (l *resourceVersionLog) has(ref, rv string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seen[ref][rv]
}

func (l *resourceVersionLog) versions(ref string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for rv := range l.seen[ref] {
		out = append(out, rv)
	}
	return out
}

// watchResourceVersions watches the namespace's Deployments, ReplicaSets
// and Pods until the test ends and logs each version the API sends.
func watchResourceVersions(t *testing.T, ctx context.Context, c *client.Client, namespace string) *resourceVersionLog {
	t.Helper()
	log := &resourceVersionLog{seen: map[string]map[string]bool{}}
	for _, res := range []client.Resource{client.DeploymentsResource, client.ReplicaSetsResource, client.PodsResource} {
		w, err := c.Dynamic(res).Namespace(namespace).Watch(ctx, client.ListOptions{})
		if err != nil {
			t.Fatalf("watch %s: %v", res, err)
		}
		t.Cleanup(w.Stop)
		go func() {
			for ev := range w.ResultChan() {
				meta, _ := ev.Object["metadata"].(map[string]any)
				name, _ := meta["name"].(string)
				rv, _ := meta["resourceVersion"].(string)
				if name != "" {
					log.add(res.String()+" "+namespace+"/"+name, rv)
				}
			}
		}()
	}
	return log
}
